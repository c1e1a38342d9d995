#!/usr/bin/python3
"""Samples/pyramid-viewer in a real browser: headless Chromium driven by Selenium.

    /usr/bin/python3 Tests/Browser/viewer_test.py PAGE_URL SCREENSHOT.png

Opens the page at 960×600, waits (in real time, up to 90 s) until the viewer says every tile of
its view is drawn or that it failed, saves a screenshot and prints the page's state as JSON:
{"level": "11", "complete": "true", "error": null}. A virtual-time budget was not enough here:
under a whole test run's load the budget could run out while tiles were still being read.

Exit status: 0 the page answered, 1 it did not in time, 77 skipped (no Chromium, chromedriver or
Selenium; the message says which).
"""

import json
import os
import shutil
import sys
import tempfile
import time

SKIP = 77
CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def main():
    page, screenshot = sys.argv[1], sys.argv[2]
    os.environ["SE_OFFLINE"] = "true"
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("SKIP: no Selenium for /usr/bin/python3 (Debian python3-selenium; make test installs it)")
        sys.exit(SKIP)
    for path, package in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")]:
        if not os.access(path, os.X_OK):
            print(f"SKIP: no {path} (Debian {package}; make test installs it)")
            sys.exit(SKIP)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="imagepipe-viewer-chromium-")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--user-data-dir={profile}", "--window-size=960,600", "--hide-scrollbars",
                     "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions",
                     "--allow-file-access-from-files"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        # The window's outer size is not its viewport's: set the viewport itself.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 960, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        driver.get(page)
        state = {}
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            state = driver.execute_script(
                "const d = document.body.dataset; return {level: d.level || null, complete: d.complete || null, error: d.error || null};")
            if state["complete"] == "true" or state["error"]:
                break
            time.sleep(0.1)
        driver.save_screenshot(screenshot)
        print(json.dumps(state))
        sys.exit(0 if state.get("complete") == "true" or state.get("error") else 1)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


main()
