#!/usr/bin/python3
"""Remakes Tests/Fixtures/suites/manifest.json and the reference decodes beside it.

Every picture file under Tests/Fixtures/suites/<suite>/ (PngSuite, bmpsuite, Pillow's test
images, libwebp's test data, AVIFs made with avifenc; the folder's README.md says where each came
from and under what terms) is decoded by the reference decoders, and the manifest gives each
file its expected class for ImagePipe:

  right        decoded within `tolerance` levels (each channel, alpha-weighted) of the stored
               reference decode, references/<suite>/<file>.png (8-bit RGBA);
  refused      a clear error, no picture (the reference decoders refuse it too, or the damage
               policy refuses what a lenient reader shows);
  unsupported  an error saying the format or feature is not supported.

The reference decoders:
  Pillow    (pip's Pillow, with AVIF; ICC profiles converted to sRGB with ImageCms, perceptual,
            as ImagePipe converts them; EXIF orientation applied as ImagePipe applies it);
  Chromium  (Debian's headless Chromium through Selenium: the first frame as a canvas reads it,
            color-managed to sRGB, EXIF orientation applied);
  libvips   (pyvips), consulted for agreement;
  the gAMA formula, for a PNG whose colors only a gAMA chunk describes (gamma_decode).

The rule, in order: an animation is `right` against Pillow's first frame of it (an APNG's
default image is not a frame); a PNG with only gAMA against the formula; a file Pillow and
Chromium decode to the same picture (within 2 levels) against Pillow's decode; where they
differ, or only Chromium reads it, against Chromium's (ImagePipe reads files as browsers show
them: cHRM, tRNS, questionable BMPs), and the note says how Pillow differs; a file only Pillow
reads against Pillow's; a file neither reads is `refused`. OVERRIDES holds the files decided
otherwise, each with why.

ImagePipe's test (SuiteConformanceTests) reads only the committed files: it needs neither
Python nor a browser.

usage: PYTHONPATH=/tmp/pylib /usr/bin/python3 Benchmarks/suites.py [--no-chromium]
  (pip install --target /tmp/pylib pillow pyvips; Debian's chromium, chromium-driver and
  python3-selenium for Chromium; python3-numpy)
"""
import base64
import io
import json
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np
from PIL import Image, ImageCms, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = os.path.join(ROOT, "Tests", "Fixtures", "suites")
PICTURE_EXTENSIONS = (".png", ".bmp", ".gif", ".ico", ".cur", ".tif", ".tiff", ".jpg", ".webp", ".avif")
# Lossy formats are decoded by the same libraries with other color arithmetic (libjpeg-turbo's
# own in both for JPEG; libwebp in both; libavif against libheif for AVIF): a level or two, and
# more at AVIF's upsampled chroma edges.
TOLERANCE = {".jpg": 2, ".webp": 2, ".avif": 4}
AGREEMENT = 2

# AVIF is held to a PSNR floor too: its decoders' color arithmetic differs more than JPEG's.
PSNR_FLOOR = {".avif": 35.0}

BAD_BMP = ("bmpsuite's bad file: {}; Chromium (and Pillow) show a picture of it, ImagePipe refuses damaged "
           "data at fail=error (docs/reliability.md)")
UNRECOGNIZED = "its signature is damaged ({}): no format is recognized; Pillow cannot identify it either"
BROKEN_APNG = ("the animation's chunks are broken ({}): ImagePipe refuses damage at fail=error; Pillow refuses "
               "the animation too (its default image, for readers without APNG, decodes)")

SUITE_PICTURE = ("bmpsuite's own reference picture ({}), the first of the three it allows: pixels the run-length "
                 "data leaves undefined are transparent; Chromium's createImageBitmap gives them black, another of the three")
EMBEDDED = "a BMP holding a {} (meant for printers): its embedded stream, decoded by Pillow (Pillow and Chromium refuse the BMP)"

CLAP = ("a clean aperture (clap) crop: libvips (libheif) shows the cropped picture, as the AVIF specification asks "
        "of readers; Pillow 13 and Chromium 156 show the whole coded picture")

# Files decided otherwise than by the rule above: class, reference and why. `use` picks the
# decoder whose picture is the reference.
OVERRIDES = {
    "bmpsuite/b/badplanes.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("30000 planes")},
    "bmpsuite/b/badpalettesize.bmp": {"class": "refused", "reference": "Pillow", "note": BAD_BMP.format("a palette of 305 million colors").replace("(and Pillow) ", "")},
    "bmpsuite/b/badrle.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("RLE8 runs past the row")},
    "bmpsuite/b/badrlebis.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("an RLE8 delta past the picture")},
    "bmpsuite/b/badrleter.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("an RLE8 delta past the picture")},
    "bmpsuite/b/badrle4.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("RLE4 runs past the row")},
    "bmpsuite/b/badrle4bis.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("an RLE4 delta past the picture")},
    "bmpsuite/b/badrle4ter.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("an RLE4 delta past the picture")},
    "bmpsuite/b/pal8badindex.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("indices past the palette")},
    "bmpsuite/b/rletopdown.bmp": {"class": "refused", "reference": "bmpsuite", "note": BAD_BMP.format("run-length data stored top down")},
    "bmpsuite/q/pal4rletrns.bmp": {"class": "right", "reference": "bmpsuite", "use": "bmpsuite/html/pal4rletrns.png", "agrees": [], "note": SUITE_PICTURE.format("html/pal4rletrns.png")},
    "bmpsuite/q/pal8rletrns.bmp": {"class": "right", "reference": "bmpsuite", "use": "bmpsuite/html/pal8rletrns.png", "agrees": [], "note": SUITE_PICTURE.format("html/pal8rletrns.png")},
    "bmpsuite/q/pal4rlecut.bmp": {"class": "right", "reference": "bmpsuite", "use": "bmpsuite/html/pal4rlecut.png", "agrees": [], "note": SUITE_PICTURE.format("html/pal4rlecut.png")},
    "bmpsuite/q/pal8rlecut.bmp": {"class": "right", "reference": "bmpsuite", "use": "bmpsuite/html/pal8rlecut.png", "agrees": [], "note": SUITE_PICTURE.format("html/pal8rlecut.png")},
    "bmpsuite/q/rgb24jpeg.bmp": {"class": "right", "reference": "Pillow", "use": "embedded", "agrees": [], "tolerance": 2, "note": EMBEDDED.format("JPEG")},
    "bmpsuite/q/rgb24png.bmp": {"class": "right", "reference": "Pillow", "use": "embedded", "agrees": [], "note": EMBEDDED.format("PNG")},
    "pillow/avif/hopper.avif": {"class": "right", "reference": "Pillow", "use": "Pillow", "agrees": ["Chromium"], "tolerance": 32, "psnr": 40.0,
                                "note": "known: 4:2:0 chroma upsampled by libheif (ImagePipe's reader, and libvips') otherwise than by libavif (Pillow) and Chromium: up to 30 levels at sharp color edges, 40.6 dB"},
    "avif/clap.avif": {"class": "right", "reference": "libvips", "use": "libvips", "agrees": [], "note": CLAP},
    "avif/clap-irot3.avif": {"class": "right", "reference": "libvips", "use": "libvips", "agrees": [], "note": CLAP},
    "avif/yuv420.avif": {"class": "right", "reference": "Pillow", "use": "Pillow", "agrees": ["Chromium"], "tolerance": 58, "psnr": 35.0,
                         "note": "known: 4:2:0 chroma upsampled by libheif (ImagePipe's reader; libvips gives the same pixels) otherwise than by libavif (Pillow) and Chromium: up to 58 levels at the sharp color edges of bmpsuite's picture, 35.7 dB"},
    "pillow/apng/chunk_multi_actl.png": {"class": "right", "reference": "Pillow", "use": "Pillow", "agrees": [], "note": "two acTL chunks: Pillow reads it as a still PNG (\"Invalid APNG\"), its IDAT, as ImagePipe does; Chromium shows another picture"},
    "bmpsuite/q/pal1huffmsb.bmp": {"class": "unsupported", "reference": "Pillow", "note": "OS/2 Huffman (fax) compression: not read (docs/formats.md), nor by Pillow or Chromium"},
    "bmpsuite/q/rgba64.bmp": {"class": "unsupported", "reference": "Pillow", "note": "64 bits per pixel: not read (docs/formats.md), nor by Pillow or Chromium"},
    "bmpsuite/x/ba-bm.bmp": {"class": "unsupported", "reference": "Pillow", "note": "an OS/2 bitmap array ('BA'), not a BMP: not recognized, nor by Pillow"},
    "pngsuite/xcsn0g01.png": {"class": "refused", "reference": "Chromium", "note": "its IDAT chunk fails its CRC check: Chromium refuses it, as libpng does; Pillow does not check it"},
    "pngsuite/xcrn0g04.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("CR LF turned into CR")},
    "pngsuite/xlfn0g04.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("CR LF turned into LF")},
    "pngsuite/xs1n0g01.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("byte 1's top bit cleared")},
    "pngsuite/xs2n0g01.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("byte 2 is 'Q'")},
    "pngsuite/xs4n0g01.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("byte 4 is lower case")},
    "pngsuite/xs7n0g01.png": {"class": "unsupported", "reference": "Pillow", "note": UNRECOGNIZED.format("byte 7 is 0")},
    "pillow/12bit.cropped.tif": {"class": "unsupported", "reference": "libtiff", "note": "12-bit samples: libtiff's reader refuses them ('Sorry, can not handle images with 12-bit samples'); Pillow reads them"},
    "pillow/crash-0da013a13571cc8eb457a39fee8db18f8a3c7127.tif": {"class": "refused", "reference": "libtiff", "note": "libtiff's Fax4 decoder reports a bad code word: Pillow shows what was decoded around it, ImagePipe refuses damaged strips at fail=error"},
    "pillow/crash-74d2a78403a5a59db1fb0a2b8735ac068a75f6e3.tif": {"class": "refused", "reference": "libtiff", "note": "libtiff's Fax4 decoder reports a bad code word: Pillow shows what was decoded around it, ImagePipe refuses damaged strips at fail=error"},
    "pillow/mask_1.cur": {"class": "refused", "reference": "Pillow", "note": "known: its directory says its one entry (a 1x2 bitmap) is 8 bytes long, less than the bitmap's own 40-byte header: Pillow and Chromium read past the length stated, ImagePipe finds no entry it can read"},
    "pillow/hopper_orientation_6.webp": {"class": "right", "reference": "Pillow", "use": "Pillow", "agrees": [], "note": "EXIF orientation 6 in a WebP, turned as Pillow turns it (hopper upright); Chromium's createImageBitmap leaves a WebP unturned"},
    "libwebp/bad_palette_index.webp": {"class": "right", "reference": "Pillow", "use": "Pillow", "agrees": [], "note": "palette indices past the palette, in a file whose header says no alpha: libwebp decodes them as transparent black and Pillow, as ImagePipe, reads the file as RGB (opaque black); Chromium keeps the transparency"},
    "pillow/apng/chunk_no_fdat.png": {"class": "refused", "reference": "Pillow", "note": BROKEN_APNG.format("a frame without fdAT")},
    "pillow/apng/chunk_repeat_fctl.png": {"class": "refused", "reference": "Pillow", "note": BROKEN_APNG.format("an fcTL repeated")},
    "pillow/apng/sequence_fdat_fctl.png": {"class": "refused", "reference": "Chromium", "note": BROKEN_APNG.format("sequence numbers out of order").replace("Pillow refuses", "Chromium refuses")},
    "pillow/apng/sequence_start.png": {"class": "refused", "reference": "Chromium", "note": BROKEN_APNG.format("the sequence starts at 1").replace("Pillow refuses", "Chromium refuses")},
}


def pillow_decode(path):
    """Pillow's first frame as RGBA (height, width, 4), turned by its EXIF orientation, in sRGB."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        image = Image.open(path)
        if image.info.get("default_image") and getattr(image, "n_frames", 1) > 1:
            image.seek(1)  # the default image is for readers without APNG: the animation starts after it
        image.load()
        icc = image.info.get("icc_profile")
        image = ImageOps.exif_transpose(image)
        mode = image.mode
        if mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
            levels = np.asarray(image, dtype=np.float64)
            if mode == "I" and levels.max() <= 255:
                gray = levels
            else:
                gray = levels * 255 / 65535
            gray = np.clip(np.floor(gray + 0.5), 0, 255).astype(np.uint8)
            image = Image.fromarray(gray, "L")
        if icc and image.mode in ("RGB", "RGBA", "L", "LA", "CMYK"):
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            description = ImageCms.getProfileDescription(source).strip().lower()
            if "srgb" not in description:
                alpha = image.getchannel("A") if image.mode in ("RGBA", "LA") else None
                base = image.convert({"LA": "L", "RGBA": "RGB"}.get(image.mode, image.mode))
                base = ImageCms.profileToProfile(base, source, ImageCms.createProfile("sRGB"),
                                                 renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB")
                image = base.convert("RGBA")
                if alpha is not None:
                    image.putalpha(alpha)
        return np.asarray(image.convert("RGBA"))


def vips_decode(path):
    import pyvips
    image = pyvips.Image.new_from_file(path, access="sequential", fail=True).autorot()
    if image.interpretation not in ("srgb", "b-w") or image.format != "uchar":
        image = image.colourspace("srgb").cast("uchar")
    if image.bands in (1, 2):
        image = image.colourspace("srgb")
    if image.bands == 3:
        image = image.bandjoin(255)
    return np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=[image.height, image.width, 4])


def png_chunks(path):
    with open(path, "rb") as file:
        data = file.read()
    chunks, at = {}, 8
    while at + 8 <= len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        chunks.setdefault(data[at + 4:at + 8].decode("latin-1"), data[at + 8:at + 8 + length])
        at += 12 + length
    return chunks


def gamma_decode(path):
    """A PNG whose colors only a gAMA chunk describes (no sRGB, iCCP, cHRM or cICP), converted to
    sRGB by the formula: libvips' samples at their full depth (it leaves gAMA unapplied), each
    raised to 1/gamma and encoded with sRGB's curve. A gamma within libpng's "not significantly
    different" of 1/2.2 (0.4318 to 0.4773) is sRGB already, as ImagePipe takes it. None for
    other files."""
    if not path.endswith(".png"):
        return None
    chunks = png_chunks(path)
    if "gAMA" not in chunks or chunks.keys() & {"sRGB", "iCCP", "cHRM", "cICP", "acTL"}:
        return None
    gamma = int.from_bytes(chunks["gAMA"], "big") / 100000
    import pyvips
    try:
        image = pyvips.Image.new_from_file(path, fail=True)
        image.avg()  # decodes it: a damaged file is left to the other decoders
    except pyvips.Error:
        return None
    peak = 65535 if image.format == "ushort" else 255
    samples = np.ndarray(buffer=image.write_to_memory(), dtype=np.uint16 if peak == 65535 else np.uint8,
                         shape=[image.height, image.width, image.bands]).astype(np.float64) / peak
    color, alpha = (samples[..., :1], samples[..., 1:]) if image.bands <= 2 else (samples[..., :3], samples[..., 3:])
    if not 0.4318 <= gamma <= 0.4773 and gamma > 0:
        linear = np.power(color, 1 / gamma)
        color = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1 / 2.4) - 0.055)
    if color.shape[2] == 1:
        color = np.repeat(color, 3, axis=2)
    if alpha.shape[2] == 0:
        alpha = np.ones(color.shape[:2] + (1,))
    return np.clip(np.floor(np.concatenate([color, alpha], axis=2) * 255 + 0.5), 0, 255).astype(np.uint8)


CHROMIUM_PAGE = """<!doctype html><html><body></body></html>"""
CHROMIUM_SCRIPT = """
const [encoded, done] = arguments;
const bytes = Uint8Array.from(atob(encoded), c => c.charCodeAt(0));
createImageBitmap(new Blob([bytes]), {colorSpaceConversion: 'default', imageOrientation: 'from-image'}).then(bitmap => {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d', {willReadFrequently: true});
  context.drawImage(bitmap, 0, 0);
  const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  let binary = '';
  for (let i = 0; i < data.length; i += 8192) binary += String.fromCharCode.apply(null, data.subarray(i, i + 8192));
  done({width: bitmap.width, height: bitmap.height, pixels: btoa(binary)});
}, error => done({error: String(error)}));
"""


class Chromium:
    """One headless Chromium for every file: the first frame through createImageBitmap."""

    def __init__(self):
        os.environ["SE_OFFLINE"] = "true"
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/lib/chromium/chromium"
        self.profile = tempfile.mkdtemp(prefix="suites-chromium-")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--user-data-dir={self.profile}", "--force-color-profile=srgb", "--no-first-run"]:
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        self.driver.set_script_timeout(30)
        page = os.path.join(self.profile, "page.html")
        with open(page, "w") as file:
            file.write(CHROMIUM_PAGE)
        self.driver.get("file://" + page)
        self.version = self.driver.capabilities.get("browserVersion", "?")

    def decode(self, path):
        with open(path, "rb") as file:
            encoded = base64.b64encode(file.read()).decode()
        result = self.driver.execute_async_script(CHROMIUM_SCRIPT, encoded)
        if "error" in result:
            raise ValueError(result["error"])
        pixels = np.frombuffer(base64.b64decode(result["pixels"]), dtype=np.uint8)
        return pixels.reshape(result["height"], result["width"], 4)

    def close(self):
        self.driver.quit()


def difference(a, b):
    """The largest difference of two RGBA pictures, each color weighted by its alpha (the color
    of a transparent pixel is not seen); None when their sizes differ."""
    if a.shape != b.shape:
        return None
    a, b = a.astype(np.int32), b.astype(np.int32)
    weighted_a = a[..., :3] * a[..., 3:4] // 255
    weighted_b = b[..., :3] * b[..., 3:4] // 255
    return int(max(np.abs(weighted_a - weighted_b).max(initial=0), np.abs(a[..., 3] - b[..., 3]).max(initial=0)))


def attempt(decoder, path):
    try:
        return decoder(path), None
    except Exception as error:  # every decoder's refusal is an answer here
        message = str(error).replace(os.path.join(SUITES, ""), "")  # no machine's paths in the manifest
        return None, f"{type(error).__name__}: {message}".splitlines()[0][:160]


def picture_files():
    for directory, _, names in sorted(os.walk(SUITES)):
        parts = os.path.relpath(directory, SUITES).split(os.sep)
        if parts[0] == "references" or parts[-1] == "html":  # reference pictures, not test files
            continue
        for name in sorted(names):
            if name.lower().endswith(PICTURE_EXTENSIONS):
                yield os.path.relpath(os.path.join(directory, name), SUITES)


def frame_count(path):
    try:
        with Image.open(path) as image:
            return getattr(image, "n_frames", 1)
    except Exception:
        return 1


def decide(file, pillow, chromium, vips, formula=None):
    """The manifest entry of `file` from its decodes ((pixels, error) each) and OVERRIDES."""
    (ours_p, pillow_error), (ours_c, chromium_error), (ours_v, vips_error) = pillow, chromium, vips
    extension = os.path.splitext(file)[1].lower()
    entry = {"file": file}
    facts = []
    if extension in (".tif", ".tiff") and ours_c is None:
        chromium_error = "it reads no TIFF"
    if ours_p is not None and frame_count(os.path.join(SUITES, file)) > 1:
        # createImageBitmap gives an animation's last frame, not its first: Pillow's first frame.
        entry.update({"class": "right", "reference": "Pillow", "agrees": []})
        facts.append("an animation: its first frame")
        picture = ours_p
    elif formula is not None:
        entry.update({"class": "right", "reference": "gAMA formula", "agrees": []})
        for name, other in (("Chromium", ours_c), ("Pillow", ours_p)):
            gap = difference(formula, other) if other is not None else None
            if gap is not None and gap <= AGREEMENT:
                entry["agrees"].append(name)
            elif gap is not None:
                facts.append(f"{name} differs by {gap} levels")
        picture = formula
    elif ours_c is not None and ours_p is not None:
        gap = difference(ours_p, ours_c)
        if gap is not None and gap <= AGREEMENT:
            entry.update({"class": "right", "reference": "Pillow", "agrees": ["Chromium"]})
            picture = ours_p
        else:
            entry.update({"class": "right", "reference": "Chromium", "agrees": []})
            facts.append("Pillow differs " + (f"by {gap} levels" if gap is not None else f"in size {ours_p.shape[1]}x{ours_p.shape[0]}"))
            picture = ours_c
    elif ours_p is not None:
        entry.update({"class": "right", "reference": "Pillow", "agrees": []})
        facts.append(f"Chromium refuses it ({chromium_error})")
        picture = ours_p
    elif ours_c is not None:
        entry.update({"class": "right", "reference": "Chromium", "agrees": []})
        facts.append(f"Pillow refuses it ({pillow_error})")
        picture = ours_c
    else:
        entry.update({"class": "refused", "reference": "Pillow", "agrees": ["Chromium"] if chromium_error else []})
        facts.append(f"Pillow: {pillow_error}")
        picture = None
    if ours_v is not None and picture is not None:
        gap = difference(picture, ours_v)
        if gap is not None and gap <= AGREEMENT:
            entry["agrees"].append("libvips")
    elif ours_v is None and entry["class"] == "refused":
        entry["agrees"].append("libvips")
    override = OVERRIDES.get(file)
    if override:
        entry.update({key: value for key, value in override.items() if key != "use"})
        use = override.get("use")
        if use == "Chromium":
            picture = ours_c
        elif use == "libvips":
            picture = ours_v
        elif use == "Pillow":
            picture = ours_p
        elif use == "embedded":
            with open(os.path.join(SUITES, file), "rb") as stream:
                data = stream.read()
            picture = np.asarray(Image.open(io.BytesIO(data[int.from_bytes(data[10:14], "little"):])).convert("RGBA"))
        elif use:
            picture = np.asarray(Image.open(os.path.join(SUITES, use)).convert("RGBA"))
        if entry["class"] != "right":
            picture = None
    else:
        entry["note"] = "; ".join(facts)
    if entry["class"] == "right":
        entry.setdefault("tolerance", TOLERANCE.get(extension, 1))
        if extension in PSNR_FLOOR:
            entry.setdefault("psnr", PSNR_FLOOR[extension])
        entry["picture"] = os.path.join("references", file + ".png")
    return entry, picture


def main():
    use_chromium = "--no-chromium" not in sys.argv
    chromium = Chromium() if use_chromium else None
    shutil.rmtree(os.path.join(SUITES, "references"), ignore_errors=True)
    entries = []
    try:
        for file in picture_files():
            path = os.path.join(SUITES, file)
            pillow = attempt(pillow_decode, path)
            browser = attempt(chromium.decode, path) if chromium else (None, "not run")
            vips = attempt(vips_decode, path)
            entry, picture = decide(file, pillow, browser, vips, gamma_decode(path))
            if picture is not None:
                target = os.path.join(SUITES, entry["picture"])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                Image.fromarray(np.ascontiguousarray(picture), "RGBA").save(target, optimize=True)
            entries.append(entry)
            print(f"{entry['class']:12} {entry['reference']:9} {file}  {entry.get('note', '')}")
    finally:
        if chromium:
            chromium.close()
    import PIL
    import pyvips
    manifest = {
        "made by": "Benchmarks/suites.py",
        "decoders": {"Pillow": PIL.__version__, "Chromium": chromium.version if chromium else None,
                     "libvips": f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}"},
        "files": entries,
    }
    with open(os.path.join(SUITES, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)
        file.write("\n")
    counts = {}
    for entry in entries:
        counts[entry["class"]] = counts.get(entry["class"], 0) + 1
    print(len(entries), "files:", counts)


if __name__ == "__main__":
    main()
