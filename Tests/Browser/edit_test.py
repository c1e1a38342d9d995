#!/usr/bin/python3
"""`imagepipe edit` in a real browser: headless Chromium driven by Selenium with real pointer,
wheel, touch and key input.

    /usr/bin/python3 Tests/Browser/edit_test.py --imagepipe .build/debug/imagepipe \
        [--report FILE] [--screenshots DIR]

Checks, in each mode, that a gesture settles where the model says (the formulas of
docs/geometry.md, recomputed here; the Swift test that runs this script checks the same steps
against CropViewport, SliceViewport and FitViewport themselves, from --report), that OK writes
exactly what `imagepipe run -e LINE` writes, that Cancel, Escape and SIGINT write nothing, and
that requests without the token or from a foreign Host or Origin are refused.

Exit status: 0 passed, 1 failed, 77 skipped (no Chromium, chromedriver or Selenium; the message
says which). Selenium Manager is kept offline (SE_OFFLINE=true): the driver is given by path.
"""

import argparse
import http.client
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

failures = []
report = {"steps": []}


def check(condition, message):
    if condition:
        print(f"  ok    {message}")
    else:
        print(f"  FAIL  {message}")
        failures.append(message)
    return condition


def skip(message):
    print(f"SKIP: {message}")
    sys.exit(SKIP)


class Editor:
    """One `imagepipe edit` process, with the address it printed."""

    def __init__(self, binary, photo, output, *options):
        command = [binary, "edit", photo, "--no-browser", *options]
        if output:
            command += ["-o", output]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = None
        self.messages = ""
        deadline = time.time() + 20
        while self.url is None and time.time() < deadline:
            ready, _, _ = select.select([self.process.stderr], [], [], 0.5)
            if not ready:
                if self.process.poll() is not None:
                    break
                continue
            line = self.process.stderr.readline()
            self.messages += line
            if "editor at " in line:
                self.url = line.split("editor at ", 1)[1].strip()
        if self.url is None:
            raise RuntimeError(f"imagepipe edit printed no address: {self.messages}{self.process.stderr.read() if self.process.poll() is not None else ''}")
        self.port = int(self.url.split(":")[2].split("/")[0])
        self.token = self.url.rstrip("/").split("/")[-1]

    def wait(self, timeout=20):
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, self.messages + err


# ---- the model's formulas (docs/geometry.md), for the assertions made here --------------------

def crop_clamp(viewport, gap, image, zoom, offset):
    W, H = viewport
    w, h = image
    d = min(W, H) - gap
    cx, cy = (W - d) / 2, (H - d) / 2
    zmin = d / min(w, h)
    zoom = min(max(zoom, zmin), max(5, zmin))
    max_x = max(-cx, w * zoom - cx - d)
    max_y = max(-cy, h * zoom - cy - d)
    return zoom, (min(max(offset[0], -cx), max_x), min(max(offset[1], -cy), max_y))


def slice_clamp(side, image, zoom, offset):
    w, h = image
    zmin = max(side / w, side / h)
    zoom = min(max(zoom, zmin), max(1, zmin))
    lx, ly = max(0, w * zoom - side), max(0, h * zoom - side)
    return zoom, (min(max(offset[0], 0), lx), min(max(offset[1], 0), ly))


# ---- the browser ----------------------------------------------------------------------------------

def browser():
    os.environ["SE_OFFLINE"] = "true"
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        skip("no Selenium for /usr/bin/python3 (Debian python3-selenium; make test installs it)")
    for path, package in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")]:
        if not os.access(path, os.X_OK):
            skip(f"no {path} (Debian {package}; make test installs it)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="imagepipe-edit-chromium-")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--user-data-dir={profile}", "--window-size=800,800", "--hide-scrollbars",
                     "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(15)
    return driver, profile


def size_window(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def open_editor(driver, editor, viewport):
    size_window(driver, *viewport)
    driver.get(editor.url)
    return settled(driver)


def settled(driver):
    driver.execute_async_script("window.imagepipe ? window.imagepipe.settled().then(arguments[0]) : "
                                "(function wait(done) { window.imagepipe ? window.imagepipe.settled().then(done) "
                                ": setTimeout(() => wait(done), 20); })(arguments[0]);")
    return state(driver)


def state(driver):
    return driver.execute_script("return window.imagepipe.state();")


def hook(driver, call):
    """Calls a window.imagepipe method that returns a Promise, and waits for it."""
    return driver.execute_async_script(f"window.imagepipe.{call}.then(arguments[0], e => arguments[0]({{error: String(e)}}));")


def editor_element(driver):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.ID, "editor")


def mouse_drag(driver, dx, dy, steps=8, start=None):
    """A real mouse drag (W3C pointer actions: Pointer Events on the page), from `start` in screen
    pixels (default: the screen's centre)."""
    from selenium.webdriver.common.action_chains import ActionChains
    element = editor_element(driver)
    box = element.rect
    x, y = start if start else (box["width"] / 2, box["height"] / 2)
    chain = ActionChains(driver, duration=10).move_to_element_with_offset(
        element, int(x - box["width"] / 2), int(y - box["height"] / 2)).click_and_hold()
    for _ in range(steps):
        chain.move_by_offset(dx // steps, dy // steps)
    chain.move_by_offset(dx - dx // steps * steps, dy - dy // steps * steps).release().perform()
    return settled(driver)


def pinch(driver, centre, start, end, steps=6):
    """A two-finger touch pinch about `centre`: the fingers go from ±start to ±end pixels apart horizontally."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    from selenium.webdriver.common.actions import interaction
    builder = ActionBuilder(driver, duration=10)
    fingers = [PointerInput(interaction.POINTER_TOUCH, "finger1"), PointerInput(interaction.POINTER_TOUCH, "finger2")]
    builder.devices = fingers
    cx, cy = centre
    for sign, finger in zip([-1, 1], fingers):
        finger.create_pointer_move(duration=0, x=int(cx + sign * start), y=int(cy))
        finger.create_pointer_down(button=0)
    for i in range(1, steps + 1):
        spread = start + (end - start) * i / steps
        for sign, finger in zip([-1, 1], fingers):
            finger.create_pointer_move(duration=10, x=int(cx + sign * spread), y=int(cy))
    for finger in fingers:
        finger.create_pointer_up(button=0)
    builder.perform()
    return settled(driver)


def wheel(driver, x, y, delta):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    element = editor_element(driver)
    box = element.rect
    origin = ScrollOrigin.from_element(element, int(x - box["width"] / 2), int(y - box["height"] / 2))
    ActionChains(driver).scroll_from_origin(origin, 0, delta).perform()
    return settled(driver)


def click(driver, ident):
    from selenium.webdriver.common.by import By
    driver.find_element(By.ID, ident).click()


def key(driver, text):
    editor_element(driver).send_keys(text)


def record(mode, step, before, after, **extra):
    report["steps"].append({"mode": mode, "step": step, "before": before, "after": after, **extra})


def same_point(a, b):
    return a["x"] == b[0] and a["y"] == b[1]


def same_files(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def ok_and_compare(driver, editor, binary, photo, output, work, name, use_key=False):
    """OK (the button, or Enter), then: exit 0, the line on stdout, and `imagepipe run -e LINE` gives the same bytes."""
    from selenium.webdriver.common.keys import Keys
    if use_key:
        key(driver, Keys.ENTER)
    else:
        click(driver, "ok")
    status, out, err = editor.wait()
    line = out.strip()
    check(status == 0, f"{name}: OK exits 0 (stderr: {err.strip()[-200:]})")
    check(os.path.exists(output), f"{name}: OK wrote {os.path.basename(output)}")
    again = os.path.join(work, f"{name}-again.png")
    run = subprocess.run([binary, "run", "-e", line, photo, "-o", again], capture_output=True, text=True)
    check(run.returncode == 0, f"{name}: imagepipe run -e '{line}' works ({run.stderr.strip()})")
    check(os.path.exists(output) and os.path.exists(again) and same_files(output, again),
          f"{name}: the output equals imagepipe run of the printed line, byte for byte")
    return line


def screenshot(driver, directory, name):
    if directory:
        driver.save_screenshot(os.path.join(directory, f"edit-{name}.png"))


# ---- the scenarios --------------------------------------------------------------------------------

def avatar(driver, binary, photo, image, work, shots):
    print("avatar (seed 000)")
    output = os.path.join(work, "avatar.png")
    editor = Editor(binary, photo, output, "--mode", "avatar", "--viewport", "375x667", "--gap", "20", "--size", "256")
    viewport, gap = (375, 667), 20
    first = open_editor(driver, editor, viewport)
    zmin = (min(viewport) - gap) / min(image)
    check(first["zoom"] == min(max(min(viewport) / min(image), zmin), 5), f"first display zoom min(W,H)/min(w,h) = {first['zoom']}")
    check(driver.find_element("id", "editor").get_attribute("data-settled") == "true", "data-settled=\"true\" when idle")
    screenshot(driver, shots, "avatar-portrait")

    # A mouse drag far past the left edge bounces back to the edge that just covers the circle.
    after = mouse_drag(driver, -340, 30, start=(360, 300))
    wanted = crop_clamp(viewport, gap, image, first["zoom"], (first["offset"]["x"] + 340, first["offset"]["y"] - 30))
    check(after["requested"]["offset"] == {"x": first["offset"]["x"] + 340, "y": first["offset"]["y"] - 30},
          "the page sent the drag's raw offset")
    check(after["zoom"] == wanted[0] and same_point(after["offset"], wanted[1]),
          f"drag past the edge settles at CropViewport.clamp: offset {after['offset']} == {wanted[1]}")
    record("avatar", "drag", first, after)

    # A two-finger pinch that shrinks the photo below zmin settles at zmin.
    before = after
    after = pinch(driver, (187, 333), 120, 25)
    check(after["requested"]["zoom"] < zmin, f"the pinch asked for zoom {after['requested']['zoom']:.4f} < zmin {zmin}")
    wanted = crop_clamp(viewport, gap, image, after["requested"]["zoom"],
                        (after["requested"]["offset"]["x"], after["requested"]["offset"]["y"]))
    check(after["zoom"] == zmin, f"pinch below zmin settles at zmin = {zmin}")
    check(same_point(after["offset"], wanted[1]), f"and the offset bounces back to {wanted[1]}")
    record("avatar", "pinch", before, after)

    # The wheel zooms in about the pointer.
    before = after
    after = wheel(driver, 250, 300, -300)
    check(after["zoom"] > before["zoom"], f"wheel up zooms in ({before['zoom']:.4f} → {after['zoom']:.4f})")
    record("avatar", "wheel", before, after)

    # Keys: arrows pan, + zooms.
    before = after
    key(driver, "+")
    after = settled(driver)
    check(abs(after["zoom"] / before["zoom"] - 1.1) < 1e-9 or after["zoom"] == max(5, zmin), "+ zooms in by 1.1")
    record("avatar", "key+", before, after)

    # Turn: the seed's relayout in the landscape viewport.
    before = after
    size_window(driver, 667, 375)
    click(driver, "turn")
    after = settled(driver)
    turned = (viewport[1], viewport[0])
    wanted = crop_clamp(turned, gap, image, before["zoom"], (before["offset"]["x"], before["offset"]["y"]))
    check(after["viewport"] == {"width": 667, "height": 375}, "turn swaps the viewport")
    check(after["zoom"] == wanted[0] and same_point(after["offset"], wanted[1]),
          f"turn relays out as CropViewport.relayout: zoom {after['zoom']:.5f}, offset {after['offset']} == {wanted[1]}")
    record("avatar", "turn", before, after)
    screenshot(driver, shots, "avatar-landscape")

    line = ok_and_compare(driver, editor, binary, photo, output, work, "avatar", use_key=True)
    check(line.startswith("circle-crop size=256 viewport=667x375 gap=20 zoom="), f"the line: {line}")
    report["avatarLine"] = line


def cancelling(driver, binary, photo, work):
    print("cancel, Escape, closing the page, SIGINT, refusals")
    from selenium.webdriver.common.keys import Keys
    for how in ["button", "escape"]:
        output = os.path.join(work, f"cancel-{how}.png")
        editor = Editor(binary, photo, output)
        open_editor(driver, editor, (375, 667))
        mouse_drag(driver, 30, 0)
        if how == "button":
            click(driver, "cancel")
        else:
            key(driver, Keys.ESCAPE)
        status, out, err = editor.wait()
        check(status == 1 and out == "" and not os.path.exists(output), f"cancel by {how}: exit 1, no line, nothing written")

    # Leaving the page (closing the tab) cancels once the server has waited for a reload.
    output = os.path.join(work, "closed.png")
    editor = Editor(binary, photo, output)
    open_editor(driver, editor, (375, 667))
    driver.refresh()
    settled(driver)
    # The server ends 2.5 s after a page says it is closing, unless another page is open by
    # then; waiting well past that (the old page's beacon may come late on a busy machine)
    # shows the reloaded page kept it open.
    try:
        editor.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    check(editor.process.poll() is None, "a reload is not a close: the editor is still there well after the close grace")
    driver.get("about:blank")
    status, out, err = editor.wait()
    check(status == 1 and out == "" and not os.path.exists(output) and "the page was closed" in err,
          "closing the page: exit 1, nothing written")

    output = os.path.join(work, "interrupted.png")
    editor = Editor(binary, photo, output)
    open_editor(driver, editor, (375, 667))
    refusals(editor)
    editor.process.send_signal(signal.SIGINT)
    status, out, err = editor.wait()
    check(status == 1 and out == "" and not os.path.exists(output), "SIGINT: exit 1, nothing written")


def request(port, path, host=None, origin=None, method="GET"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if origin:
        headers["Origin"] = origin
    connection.request(method, path, body="" if method == "POST" else None, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def refusals(editor):
    token, port = editor.token, editor.port
    check(request(port, f"/{token}/") == 200, "with the token: 200")
    check(request(port, "/") == 403 and request(port, "/editor.js") == 403, "without the token: 403")
    check(request(port, f"/{'0' * len(token)}/") == 403, "with another token: 403")
    check(request(port, f"/{token}/", host=f"evil.example:{port}") == 403, "a foreign Host (DNS rebinding): 403")
    check(request(port, f"/{token}/", host=f"localhost:{port}") == 200, "Host localhost:PORT is this editor too")
    check(request(port, f"/{token}/cancel", origin="http://evil.example", method="POST") == 403, "a foreign Origin: 403")
    check(editor.process.poll() is None, "the refused cancel did not stop the editor")


def slice_mode(driver, binary, photo, image, work, shots):
    print("slice (seed 001)")
    output = os.path.join(work, "slice.png")
    editor = Editor(binary, photo, output, "--mode", "slice", "--viewport", "375x667", "--size", "300")
    first = open_editor(driver, editor, (375, 667))
    zmin = max(300 / image[0], 300 / image[1])
    check(first["zoom"] == zmin, f"slice starts at the covering zoom {zmin:.5f}")
    screenshot(driver, shots, "slice-portrait")
    after = mouse_drag(driver, 250, 120, start=(60, 200))
    raw = after["requested"]
    wanted = slice_clamp(300, image, raw["zoom"], (raw["offset"]["x"], raw["offset"]["y"]))
    check(same_point(after["offset"], wanted[1]) and after["offset"]["x"] == 0,
          f"drag past the top-left bounces back to SliceViewport's clamp {wanted[1]}")
    record("slice", "drag", first, after)
    before = after
    after = hook(driver, "zoomBy(1.6, 187, 333)") or state(driver)
    after = state(driver)
    wanted = slice_clamp(300, image, after["requested"]["zoom"], (after["requested"]["offset"]["x"], after["requested"]["offset"]["y"]))
    check(after["zoom"] == wanted[0] and same_point(after["offset"], wanted[1]), f"zoomBy settles at zoom {after['zoom']:.5f}")
    record("slice", "zoom", before, after)
    size_window(driver, 667, 375)
    before = after
    after = hook(driver, "turn()") or state(driver)
    after = state(driver)
    check(after["viewport"] == {"width": 667, "height": 375} and after["zoom"] == before["zoom"]
          and after["offset"] == before["offset"], "turn keeps the slice's state in the landscape screen")
    screenshot(driver, shots, "slice-landscape")
    line = ok_and_compare(driver, editor, binary, photo, output, work, "slice")
    check(line.startswith("slice zoom=") or line.startswith("slice "), f"the line: {line}")


def viewer_mode(driver, binary, photo, image, work, shots):
    print("viewer (seed 004)")
    output = os.path.join(work, "viewer.png")
    editor = Editor(binary, photo, output, "--mode", "viewer", "--viewport", "375x667")
    first = open_editor(driver, editor, (375, 667))
    check(first["picture"]["width"] == 375 and first["picture"]["x"] == 0, "the viewer fits the photo's width")
    check(first["picture"]["y"] == (667 - first["picture"]["height"]) // 2, "and centres it, floored")
    screenshot(driver, shots, "viewer-portrait")
    after = pinch(driver, (187, 333), 40, 140)
    check(after["zoom"] > first["zoom"], f"a spreading pinch zooms in ({after['zoom'] / first['zoom']:.3f} × fit)")
    check(after["picture"]["x"] <= 0 and after["picture"]["x"] + after["picture"]["width"] >= 375,
          "zoomed past the screen's width, the photo covers it across")
    record("viewer", "pinch", first, after)
    before = after
    mouse_drag(driver, 350, 0, start=(10, 300))
    after = mouse_drag(driver, 350, 0, start=(10, 300))
    check(after["picture"]["x"] == 0, "a drag past the left edge stops at the photo's edge")
    record("viewer", "drag", before, after)
    size_window(driver, 667, 375)
    click(driver, "turn")
    after = settled(driver)
    check(after["viewport"] == {"width": 667, "height": 375} and after["picture"]["height"] == 375,
          "turn fits the photo to the landscape screen again (seed 004 resets the zoom)")
    screenshot(driver, shots, "viewer-landscape")
    wheel(driver, 333, 187, -400)
    line = ok_and_compare(driver, editor, binary, photo, output, work, "viewer")
    check(line.startswith("fit 667x375 zoom=") and "| letterbox 667x375" in line, f"the line: {line}")


def swipe_mode(driver, binary, photo, image, work, shots):
    print("swipe (seed 003)")
    output = os.path.join(work, "swipe.png")
    editor = Editor(binary, photo, output, "--mode", "swipe", "--viewport", "375x667")
    first = open_editor(driver, editor, (375, 667))
    after = mouse_drag(driver, 60, 0)
    check(after["pan"] == 0 and after["dismissed"] is False,
          f"a short pan (60/375 · π/4 = {60 / 375 * math.pi / 4:.3f} rad ≤ 0.33) springs back")
    after = mouse_drag(driver, 200, 0, start=(100, 300))
    angle = 200 / 375 * math.pi / 4
    check(after["pan"] == 200 and after["dismissed"] is True and abs(after["angle"] - angle) < 1e-12,
          f"a pan of 200 turns {angle:.3f} rad > 0.33 about (0.5, 1.5): dismissed")
    record("swipe", "dismiss", first, after)
    screenshot(driver, shots, "swipe-portrait")
    size_window(driver, 667, 375)
    hook(driver, "turn()")
    after = mouse_drag(driver, 300, 0, start=(200, 200))
    check(after["viewport"] == {"width": 667, "height": 375} and after["dismissed"] is True, "landscape: a pan of 300 dismisses")
    screenshot(driver, shots, "swipe-landscape")
    line = ok_and_compare(driver, editor, binary, photo, output, work, "swipe")
    check(line == "fit 667x375 | letterbox 667x375 | rotate pan=300 anchor=0.5,1.5", f"the line: {line}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imagepipe", required=True)
    parser.add_argument("--photo", default=os.path.join(ROOT, "Samples/images/boats.jpg"))
    parser.add_argument("--report")
    parser.add_argument("--screenshots")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.imagepipe)
    start = time.time()
    header = subprocess.run([binary, "explain", "-e", "fit 1x1", arguments.photo], capture_output=True, text=True).stdout
    size = header.split(": ", 1)[1].split()[1] if ": " in header else None
    image = tuple(int(v) for v in size.split("x")) if size else (1280, 800)
    if arguments.screenshots:
        os.makedirs(arguments.screenshots, exist_ok=True)
    driver, profile = browser()
    work = tempfile.mkdtemp(prefix="imagepipe-edit-test-")
    try:
        report["image"] = list(image)
        avatar(driver, binary, arguments.photo, image, work, arguments.screenshots)
        cancelling(driver, binary, arguments.photo, work)
        slice_mode(driver, binary, arguments.photo, image, work, arguments.screenshots)
        viewer_mode(driver, binary, arguments.photo, image, work, arguments.screenshots)
        swipe_mode(driver, binary, arguments.photo, image, work, arguments.screenshots)
    except Exception as error:  # a crash of the test is a failure, with its reason
        import traceback
        traceback.print_exc()
        failures.append(f"{type(error).__name__}: {error}")
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    if arguments.report:
        report["failures"] = failures
        with open(arguments.report, "w") as file:
            json.dump(report, file, indent=1)
    seconds = time.time() - start
    if failures:
        print(f"edit_test: {len(failures)} FAILED in {seconds:.1f} s")
        return 1
    print(f"edit_test: all passed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
