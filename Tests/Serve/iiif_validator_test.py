"""`imagepipe serve --iiif` against the official IIIF Image API validator (PyPI iiif-validator).

Usage: iiif_validator_test.py IMAGEPIPE WORK VALIDATOR_DIR

The validator's test picture is made here from the validator's own colour table (ten by ten
squares of 100 pixels, the square in column x and row y of colour colorInfo[x][y]), served from
WORK/root, and the validator run on 127.0.0.1 for version 3.0 at level 2 (every test must pass),
then its level-3 tests of what the service also makes (GIF, TIFF, Link headers, any angle,
mirroring, ^ upscaling). Then the same for Image API 2.1 under /iiif/2/: the validator's 2.x
tests are those it names "2.0" (with "2.1" it runs none at level 2 and writes its URLs as 1.x
did, quality native and no format), which a 2.1 server answers as 2.0's. Then what the
validator does not look at: the canonical Link itself, CORS on errors, the redirect's target,
escaped slashes in identifiers, 501, where 2.1's sizes differ from 3.0's, and the switch.

Left out of the level-3 runs: format_webp (it calls Python 2's urllib.urlopen), format_jp2 and
format_pdf (not made: 501), and for 2.1 region_square, which the validator runs only as "2.1"
and so asks for .../square/full/0/native without a format.
"""
import http.client
import io
import json
import os
import shutil
import subprocess
import sys
import time

IMAGEPIPE, WORK, VALIDATOR = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, VALIDATOR)
from iiif_validator.validator import ValidationInfo  # noqa: E402
from PIL import Image  # noqa: E402

IDENTIFIER = "iiif-validator-squares.png"
ROOT = os.path.join(WORK, "root")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL", message)


def make_picture():
    os.makedirs(os.path.join(ROOT, "sub", "dir"), exist_ok=True)
    colors = ValidationInfo().colorInfo
    picture = Image.new("RGB", (1000, 1000))
    for x in range(10):
        for y in range(10):
            picture.paste(colors[x][y], (x * 100, y * 100, x * 100 + 100, y * 100 + 100))
    picture.save(os.path.join(ROOT, IDENTIFIER))
    shutil.copy(os.path.join(ROOT, IDENTIFIER), os.path.join(ROOT, "sub", "dir", "squares.png"))


class Server:
    def __init__(self, *arguments):
        self.log = open(os.path.join(WORK, f"serve-{time.monotonic_ns()}.log"), "w+")
        self.process = subprocess.Popen([IMAGEPIPE, "serve", "--root", ROOT, "--listen", "127.0.0.1:0", "--unsigned", *arguments],
                                        stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        text = ""
        while time.monotonic() < deadline:
            self.log.seek(0)
            text = self.log.read()
            if "listening on http://127.0.0.1:" in text:
                self.port = int(text.split("listening on http://127.0.0.1:")[1].split("/")[0].split(" ")[0])
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit("the server did not start:\n" + text)

    def get(self, path, headers=None, method="GET"):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(2)
            self.process.wait(timeout=20)


def validate(server, version, *arguments):
    """The validator's own command for `version` ("3.0", or "2.0" for /iiif/2/); returns (tests,
    failures) from its last line."""
    command = [sys.executable, os.path.join(VALIDATOR, "bin", "iiif-validate.py"), "-s", f"127.0.0.1:{server.port}",
               "-p", "iiif/" + version[0], "-i", IDENTIFIER, "--version", version, *arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, PYTHONPATH=VALIDATOR))
    output = result.stdout + result.stderr
    print(output.strip())
    done = [line for line in output.splitlines() if line.startswith("Done (")]
    check(done, f"the validator ran to its end ({version} {' '.join(arguments)}): {output[-2000:]}")
    if not done:
        return 0, -1
    tests, bad = done[-1][len("Done ("):].rstrip(")").split(", ")
    return int(tests.split()[0]), int(bad.split()[0])


def check2(server):
    """Image API 2.1 where the validator does not look, and where it differs from 3.0."""
    base = f"http://127.0.0.1:{server.port}/iiif/2/{IDENTIFIER}"
    profile = '<http://iiif.io/api/image/2/level2.json>;rel="profile"'
    status, headers, body = server.get(f"/iiif/2/{IDENTIFIER}/0,0,500,500/250,/0/default.png")
    check(status == 200 and Image.open(io.BytesIO(body)).size == (250, 250), f"2.1: a region at a size: {status}")
    check(f'<{base}/0,0,500,500/250,/0/default.png>;rel="canonical"' in headers.get("link", ""), f"2.1 canonical w,: {headers.get('link')}")
    check(profile in headers.get("link", ""), f"2.1 profile link: {headers.get('link')}")
    check(headers.get("access-control-allow-origin") == "*", f"2.1 CORS: {headers}")
    status, headers, _ = server.get(f"/iiif/2/{IDENTIFIER}/full/max/0/default.jpg", method="HEAD")
    check(status == 200 and f'<{base}/full/full/0/default.jpg>;rel="canonical"' in headers.get("link", ""),
          f"2.1: max is full, canonically: {status} {headers.get('link')}")
    # Larger than the picture without ^ (400 in 3.0), the best fit of !w,h larger too; no ^.
    status, headers, body = server.get(f"/iiif/2/{IDENTIFIER}/full/1500,/0/default.jpg")
    check(status == 200 and Image.open(io.BytesIO(body)).size == (1500, 1500), f"2.1 enlarges without ^: {status}")
    check(f'<{base}/full/1500,/0/default.jpg>;rel="canonical"' in headers.get("link", ""), f"2.1 canonical of an enlargement: {headers.get('link')}")
    status, _, body = server.get(f"/iiif/2/{IDENTIFIER}/full/!1200,2000/0/default.png")
    check(status == 200 and Image.open(io.BytesIO(body)).size == (1200, 1200), f"2.1 !w,h fits a larger box: {status}")
    status, headers, _ = server.get(f"/iiif/2/{IDENTIFIER}/full/^1500,/0/default.jpg")
    check(status == 400 and headers.get("access-control-allow-origin") == "*", f"2.1 knows no ^: 400 with CORS, got {status}")
    status, _, _ = server.get(f"/iiif/3/{IDENTIFIER}/full/full/0/default.jpg")
    check(status == 400, f"3.0 knows no size full: 400, got {status}")
    status, _, body = server.get(f"/iiif/2/{IDENTIFIER}/square/200,/0/gray.png")
    check(status == 200 and Image.open(io.BytesIO(body)).size == (200, 200), f"2.1 square: {status}")
    status, headers, _ = server.get(f"/iiif/2/{IDENTIFIER}")
    check(status == 303 and headers.get("location") == base + "/info.json", f"2.1: the base URI redirects: {status} {headers}")
    status, headers, body = server.get(f"/iiif/2/{IDENTIFIER}/info.json")
    info = json.loads(body)
    check(status == 200 and headers.get("content-type") == "application/json" and profile in headers.get("link", ""),
          f"2.1 information: {status} {headers}")
    check(info.get("@id") == base and info.get("@context") == "http://iiif.io/api/image/2/context.json"
          and info.get("profile", [None])[0] == "http://iiif.io/api/image/2/level2.json" and "id" not in info,
          f"2.1 information's fields: {body[:400]}")
    status, headers, _ = server.get(f"/iiif/2/{IDENTIFIER}/info.json", headers={"Accept": "application/ld+json"})
    check(headers.get("content-type") == 'application/ld+json;profile="http://iiif.io/api/image/2/context.json"',
          f"2.1 JSON-LD when asked: {headers.get('content-type')}")
    status, _, body = server.get("/iiif/2/sub%2Fdir%2Fsquares.png/info.json")
    check(status == 200 and json.loads(body).get("@id") == f"http://127.0.0.1:{server.port}/iiif/2/sub%2Fdir%2Fsquares.png",
          f"2.1: an identifier with escaped slashes: {status} {body[:300]}")
    status, headers, _ = server.get(f"/iiif/2/{IDENTIFIER}/full/full/0/default.pdf")
    check(status == 501 and headers.get("access-control-allow-origin") == "*", f"2.1 pdf: 501 with CORS: {status}")
    for path in ["/iiif/2/missing.png/info.json", "/iiif/2/..%2F..%2Fetc%2Fpasswd/info.json"]:
        status, _, _ = server.get(path)
        check(status in (400, 403, 404), f"{path}: refused, got {status}")


def main():
    make_picture()
    server = Server("--iiif")
    try:
        tests, bad = validate(server, "3.0", "--level", "2")
        print(f"level 2: {tests} tests, {bad} failures")
        check(tests >= 33 and bad == 0, f"the validator's level-2 tests for 3.0 all pass ({tests} tests, {bad} failures)")
        extra = ["format_gif", "format_tif", "linkheader_canonical", "linkheader_profile", "rot_full_non90", "rot_mirror",
                 "rot_mirror_180", "rot_region_non90", "size_up"]
        tests, bad = validate(server, "3.0", *[part for name in extra for part in ("--test", name)])
        print(f"level 3, what is made: {tests} tests, {bad} failures")
        check(tests == len(extra) and bad == 0, f"the level-3 tests of what is made pass ({tests} tests, {bad} failures)")
        # Image API 2.1, as the validator's 2.x tests see it.
        tests, bad = validate(server, "2.0", "--level", "2")
        print(f"2.1, level 2: {tests} tests, {bad} failures")
        check(tests >= 30 and bad == 0, f"the validator's level-2 tests for 2.x all pass ({tests} tests, {bad} failures)")
        tests, bad = validate(server, "2.0", *[part for name in extra for part in ("--test", name)])
        print(f"2.1, level 3, what is made: {tests} tests, {bad} failures")
        check(tests == len(extra) and bad == 0, f"the 2.x level-3 tests of what is made pass ({tests} tests, {bad} failures)")
        check2(server)

        base = f"http://127.0.0.1:{server.port}/iiif/3/{IDENTIFIER}"
        status, headers, body = server.get(f"/iiif/3/{IDENTIFIER}/0,0,500,500/250,/0/default.png")
        check(status == 200 and headers.get("content-type") == "image/png", f"a region at a size: {status} {headers}")
        check(f'<{base}/0,0,500,500/250,250/0/default.png>;rel="canonical"' in headers.get("link", ""), f"canonical link: {headers.get('link')}")
        check(Image.open(io.BytesIO(body)).size == (250, 250), "the size asked for")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}/full/max/0/default.tif", method="HEAD")
        check(status == 200 and headers.get("content-type") == "image/tiff", f"TIFF's media type: {status} {headers}")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}")
        check(status == 303 and headers.get("location") == base + "/info.json", f"the base URI redirects: {status} {headers}")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}/full/max/0/default.jp2")
        check(status == 501 and headers.get("access-control-allow-origin") == "*", f"jp2: 501 with CORS: {status} {headers}")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}/full/max/0/default.xyz")
        check(status == 400 and headers.get("access-control-allow-origin") == "*", f"a bad format: 400 with CORS: {status}")
        status, _, _ = server.get(f"/iiif/3/{IDENTIFIER}/full/1001,/0/default.jpg")
        check(status == 400, f"larger than the picture without ^: 400, got {status}")
        status, _, _ = server.get(f"/iiif/3/{IDENTIFIER}/2000,0,10,10/max/0/default.jpg")
        check(status == 400, f"a region outside the picture: 400, got {status}")
        status, _, _ = server.get("/iiif/3/missing.png/info.json")
        check(status == 404, f"an unknown identifier: 404, got {status}")
        status, _, _ = server.get("/iiif/3/..%2F..%2Fetc%2Fpasswd/info.json")
        check(status in (400, 403, 404), f"out of the root: refused, got {status}")
        status, headers, body = server.get("/iiif/3/sub%2Fdir%2Fsquares.png/info.json")
        check(status == 200 and b'"id":"http://127.0.0.1:%d/iiif/3/sub%%2Fdir%%2Fsquares.png"' % server.port in body.replace(b" ", b""),
              f"an identifier with escaped slashes: {status} {body[:300]}")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}/info.json", headers={"Accept": "application/ld+json"})
        check(headers.get("content-type", "").startswith("application/ld+json"), f"JSON-LD when asked: {headers.get('content-type')}")
        status, headers, _ = server.get(f"/iiif/3/{IDENTIFIER}/info.json")
        check(headers.get("content-type") == "application/json", f"JSON otherwise: {headers.get('content-type')}")
    finally:
        server.stop()
    # Off unless asked: a server without --iiif answers no IIIF address.
    plain = Server()
    try:
        for version in ("3", "2"):
            status, _, _ = plain.get(f"/iiif/{version}/{IDENTIFIER}/info.json")
            check(status == 404, f"without --iiif: 404 under /iiif/{version}/, got {status}")
    finally:
        plain.stop()
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
