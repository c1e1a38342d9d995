#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets: GIFs and animated WebPs whose frames reach
past their canvas (decode-regressions), small JPEGs of each kind for the lossless target
(lossless-regressions: needs cjpeg), request heads for the HTTP target (http-regressions), and
plugin descriptions for the schema target (schema-regressions).
Run from the repository's root: python3 Tests/Fuzz/make-seeds.py"""
import json, os, struct, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def write(folder, name, data):
    with open(os.path.join(HERE, folder, name), "wb") as f:
        f.write(data)


# GIF ------------------------------------------------------------------------------------------

def lzw(pixels, min_code_size=2):
    """GIF LZW data that never grows its code size: a clear code before every two pixels."""
    clear, end, width = 1 << min_code_size, (1 << min_code_size) + 1, min_code_size + 1
    codes = []
    for i, p in enumerate(pixels):
        if i % 2 == 0:
            codes.append(clear)
        codes.append(p)
    codes.append(end)
    bits = value = 0
    out = bytearray()
    for code in codes:
        value |= code << bits
        bits += width
        while bits >= 8:
            out.append(value & 0xFF)
            value >>= 8
            bits -= 8
    if bits:
        out.append(value & 0xFF)
    blocks = bytearray([min_code_size])
    for i in range(0, len(out), 255):
        chunk = out[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")


def gif(screen, frames, loop=True):
    """frames: (x, y, width, height, interlaced, pixel count to write or None for all, disposal)."""
    data = bytearray(b"GIF89a" + struct.pack("<HH", *screen) + bytes([0xF1, 0, 0]))
    data += bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])  # 4 colours
    if loop:
        data += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    for x, y, w, h, interlaced, count, disposal in frames:
        data += bytes([0x21, 0xF9, 4, disposal << 2, 10, 0, 0, 0])
        data += b"\x2C" + struct.pack("<HHHH", x, y, w, h) + bytes([0x40 if interlaced else 0])
        n = w * h if count is None else count
        data += lzw([(i + x + y) % 4 for i in range(n)])
    return bytes(data + b"\x3B")


# A 2x2 screen; frames larger than it, offset past it, interlaced across its bottom, each disposal.
write("decode-regressions", "gif-frames-past-2x2-screen.gif", gif((2, 2), [
    (0, 0, 2, 2, False, None, 1),
    (0, 0, 40, 30, False, None, 2),
    (1, 1, 9, 17, True, None, 3),
    (300, 300, 4, 4, False, None, 1),
    (1, 0, 3, 2, False, None, 0),
]))
# A frame of 65535x65535 (4.3 gigapixels) on a 2x2 screen after one that fits: only a few rows of data.
write("decode-regressions", "gif-frame-65535-square-on-2x2.gif", gif((2, 2), [
    (0, 0, 2, 2, False, None, 0),
    (0, 0, 65535, 65535, False, 64, 0),
    (0, 1, 2, 1, False, None, 0),
]))
# A frame offset past the screen first (the header reading widens the screen to hold it), then
# frames of every size past that.
write("decode-regressions", "gif-first-frame-offset-past-screen.gif", gif((2, 2), [
    (6, 5, 3, 2, False, None, 0),
    (0, 0, 12, 12, True, None, 2),
    (65000, 0, 2, 2, False, None, 0),
]))


# WebP -----------------------------------------------------------------------------------------

def vp8l(width, height, argb=(255, 200, 40, 10)):
    """A lossless bitstream of one colour: five one-symbol prefix codes, so no bits per pixel."""
    bits = []

    def put(value, count):
        bits.extend((value >> i) & 1 for i in range(count))
    put(width - 1, 14); put(height - 1, 14); put(1 if argb[0] != 255 else 0, 1); put(0, 3)
    put(0, 1)  # no transform
    put(0, 1)  # no colour cache
    put(0, 1)  # no meta prefix codes
    a, r, g, b = argb
    for symbol in (g, r, b, a):
        put(1, 1); put(0, 1); put(1, 1); put(symbol, 8)  # simple code, one 8-bit symbol
    put(1, 1); put(0, 1); put(0, 1); put(0, 1)  # distance: one 1-bit symbol, 0
    out = bytearray([0x2F])
    for i in range(0, len(bits), 8):
        out.append(sum(bit << j for j, bit in enumerate(bits[i:i + 8])))
    return bytes(out)


def chunk(name, payload):
    return name + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")


def u24(value):
    return struct.pack("<I", value)[:3]


def webp(canvas, frames):
    """frames: (x, y, width, height) with even x and y."""
    body = chunk(b"VP8X", bytes([0x12, 0, 0, 0]) + u24(canvas[0] - 1) + u24(canvas[1] - 1))
    body += chunk(b"ANIM", bytes([0, 0, 0, 0]) + struct.pack("<H", 0))
    for i, (x, y, w, h) in enumerate(frames):
        body += chunk(b"ANMF", u24(x // 2) + u24(y // 2) + u24(w - 1) + u24(h - 1) + u24(80) + bytes([0x02])
                      + chunk(b"VP8L", vp8l(w, h, (255, 60 * i % 256, 90, 200))))
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body


write("decode-regressions", "webp-frames-inside-canvas.webp", webp((4, 4), [(0, 0, 4, 4), (2, 2, 2, 2), (0, 2, 4, 2)]))
write("decode-regressions", "webp-frame-past-canvas.webp", webp((2, 2), [(0, 0, 2, 2), (0, 0, 40, 30), (200, 200, 2, 2)]))
write("decode-regressions", "webp-first-frame-offset-past-canvas.webp", webp((2, 2), [(4, 4, 2, 2), (0, 0, 2, 2)]))


# JPEG (cjpeg) ---------------------------------------------------------------------------------

def ppm(width, height):
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            pixels += bytes([(x * 7) % 256, (y * 11) % 256, ((x + y) * 5) % 256])
    return b"P6\n%d %d\n255\n" % (width, height) + bytes(pixels)


def cjpeg(name, size, *options):
    with tempfile.NamedTemporaryFile(suffix=".ppm") as source:
        source.write(ppm(*size))
        source.flush()
        data = subprocess.run(["cjpeg", "-quality", "70", *options, source.name], check=True, capture_output=True).stdout
    write("lossless-regressions", name, data)


cjpeg("baseline-420-48x32.jpg", (48, 32), "-sample", "2x2")
cjpeg("baseline-422-33x17.jpg", (33, 17), "-sample", "2x1")
cjpeg("baseline-444-40x24.jpg", (40, 24), "-sample", "1x1")
cjpeg("progressive-420-64x48.jpg", (64, 48), "-sample", "2x2", "-progressive")
cjpeg("progressive-444-17x31.jpg", (17, 31), "-sample", "1x1", "-progressive")
cjpeg("restart-markers-420-64x64.jpg", (64, 64), "-sample", "2x2", "-restart", "1B")
cjpeg("grey-30x20.jpg", (30, 20), "-grayscale")
cjpeg("baseline-411-64x16.jpg", (64, 16), "-sample", "4x1")


# HTTP request heads ---------------------------------------------------------------------------

def request(target, *headers, version="HTTP/1.1"):
    return ("GET %s %s\r\n" % (target, version) + "".join(h + "\r\n" for h in headers) + "\r\n").encode()


write("http-regressions", "plain-address.http", request("/_/-/photos/a.jpg", "Host: localhost"))
write("http-regressions", "pipeline-and-format.http", request("/_/cmVzaXplIDMwMHgyMDA/photos/a%20b.png@webp", "Host: localhost"))
write("http-regressions", "accept-weights.http", request(
    "/_/-/a.jpg", "Host: localhost", "Accept: image/avif;q=0, image/webp;q=0.8, image/*;q=0.5, */*;q=0.1"))
write("http-regressions", "accept-q0-everything.http", request(
    "/_/-/a.png", "Host: localhost", "Accept: image/jpeg;q=0, image/png;q=0.000, */*;q=0"))
write("http-regressions", "ranges.http", request(
    "/_/-/a.gif", "Host: localhost", "Range: bytes=0-0,0-,-1," + ",".join(["0-"] * 40), "If-Range: \"x\""))
write("http-regressions", "if-none-match.http", request("/_/-/a.webp", "Host: localhost", "If-None-Match: W/\"a\", *"))
write("http-regressions", "imgproxy-plain.http", request("/sig/rs:fill:300:200:1/g:sm/q:80/plain/local:///a.jpg@avif", "Host: localhost"))
write("http-regressions", "imgproxy-base64.http", request("/sig/w:100/h:50/bG9jYWw6Ly8vYS5qcGc.png", "Host: localhost"))
write("http-regressions", "absolute-uri.http", request("http://localhost/_/-/http://example.com/a.jpg?x=1", "Accept: image/webp"))
write("http-regressions", "http10-no-host.http", request("/_/-/a%2e%2e/b.jpg?explain", version="HTTP/1.0"))
write("http-regressions", "dot-segments.http", request("/_/-/a/%2E%2E/b.jpg", "Host: localhost"))
write("http-regressions", "folded-headers.http", request("/_/-/a.jpg", "Host: localhost", "Accept: image/webp;", " q=0.5,\timage/avif"))


# Plugin descriptions (describe's JSON) ----------------------------------------------------------

def description(stages, **keys):
    return json.dumps(dict({"schemaVersion": 1, "name": "fuzz", "summary": "A fuzzed plugin", "stages": stages}, **keys)).encode()


def stage(name, parameters):
    return {"name": name, "summary": "s", "usage": name, "example": name, "parameters": parameters}


every_kind = [
    {"name": "count", "kind": "integer", "default": "3", "range": [0, 10], "help": "h", "positional": True},
    {"name": "ratio", "kind": "number", "default": "0.5", "range": [0, 1]},
    {"name": "side", "kind": "size", "range": [1, 4000]},
    {"name": "at", "kind": "point"}, {"name": "anchor", "kind": "anchor", "default": "center"},
    {"name": "tint", "kind": "color", "default": "red"}, {"name": "turn", "kind": "angle", "default": "0deg"},
    {"name": "amount", "kind": "percentage", "default": "50%"},
    {"name": "mode", "kind": "choice", "choices": ["fast", "good"], "default": "fast"},
    {"name": "flag", "kind": "boolean", "default": "false"}, {"name": "label", "kind": "string"},
    {"name": "file", "kind": "path"}, {"name": "fit", "kind": "resize-size", "auto": True},
    {"name": "position", "kind": "position"}, {"name": "rect", "kind": "crop-rect"},
    {"name": "weights", "kind": "numbers", "count": [1, 9], "range": [-1, 1]},
]
write("schema-regressions", "every-kind-loads.json", description([stage("fuzz-every", every_kind)]))
write("schema-regressions", "schema-version-1e300-trapped.json", b'{"schemaVersion":1e300,"name":"fuzz","stages":[]}')
write("schema-regressions", "stage-name-with-space.json", description([stage("a b", [])]))
write("schema-regressions", "stage-name-escape.json", description([stage("red\u001b[31m", [])]))
write("schema-regressions", "stage-name-right-to-left.json", description([stage("gpj.\u202eexe", [])]))
write("schema-regressions", "stage-name-100k.json", description([stage("a" * 100000, [])]))
write("schema-regressions", "stage-name-synonym-scale.json", description([stage("scale", [])]))
write("schema-regressions", "stage-name-clash-fit.json", description([stage("fit", [])]))
write("schema-regressions", "parameter-name-empty.json", description([stage("fuzz", [{"name": "", "kind": "integer"}])]))
write("schema-regressions", "parameter-name-equals.json", description([stage("fuzz", [{"name": "a=b", "kind": "integer"}])]))
write("schema-regressions", "default-nan.json", description([stage("fuzz", [{"name": "level", "kind": "number", "default": "nan"}])]))
write("schema-regressions", "count-1e300.json", description([stage("fuzz", [{"name": "weights", "kind": "numbers", "count": [1, 1e300]}])]))
write("schema-regressions", "range-int-max.json", description([stage("fuzz", [{"name": "seed", "kind": "integer",
                                                                            "range": [-9223372036854775808, 9223372036854775807]}])]))
