"""Draws the README's pictures of the scaling modes: a zone plate and a photo detail, each
shrunk by `imagepipe run --scaling fast|good|best`, shown side by side (the photo detail enlarged
4x without smoothing, so pixels can be compared).

usage: python3 docs/quality/make-pictures.py IMAGEPIPE   (needs Pillow; writes docs/quality/*.png)
"""
import math
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODES = ["fast", "good", "best"]


def zone_plate(path, size=1600):
    """Rings whose frequency grows to the source's Nyquist at the edges (as the benchmark's),
    as a JPEG of quality 95: the modes differ in how far they let the decoder reduce it."""
    image = Image.new("L", (size, size))
    k = math.pi / size
    image.putdata([round(128 + 127 * math.cos(k * ((x + 0.5 - size / 2) ** 2 + (y + 0.5 - size / 2) ** 2)))
                   for y in range(size) for x in range(size)])
    image.save(path, quality=95)


def shrink(imagepipe, pipeline, source, mode, out):
    subprocess.run([imagepipe, "run", "--scaling", mode, "-e", pipeline, source, "-o", out, "-q"], check=True)
    return Image.open(out).convert("RGB")


def row(pictures, labels, scale=1):
    width, height = pictures[0].size
    gap, caption = 8, 22
    sheet = Image.new("RGB", (len(pictures) * (width * scale + gap) - gap, height * scale + caption), "white")
    draw = ImageDraw.Draw(sheet)
    for index, (picture, label) in enumerate(zip(pictures, labels)):
        x = index * (width * scale + gap)
        sheet.paste(picture.resize((width * scale, height * scale), Image.NEAREST), (x, caption))
        draw.text((x + 4, 5), label, fill="black")
    return sheet


def main():
    imagepipe = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        plate = os.path.join(work, "plate.jpg")
        zone_plate(plate)
        shrunk = [shrink(imagepipe, "fit 200x200", plate, mode, os.path.join(work, f"z-{mode}.png")) for mode in MODES]
        row(shrunk, [f"--scaling {mode}" for mode in MODES]).save(os.path.join(HERE, "zone-plate.png"), optimize=True)
        photo = os.path.join(ROOT, "Samples", "images", "boats.jpg")
        details = [shrink(imagepipe, "fit 320x320", photo, mode, os.path.join(work, f"d-{mode}.png")) for mode in MODES]
        # The boats' ropes and planks, 4x: where the modes differ.
        box = (70, 120, 145, 195)
        row([d.crop(box) for d in details], [f"--scaling {mode}" for mode in MODES], scale=4).save(
            os.path.join(HERE, "photo-detail.png"), optimize=True)


if __name__ == "__main__":
    main()
