"""The benchmark tasks in Pillow, written as a Pillow user would (draft mode for JPEG
shrink-on-load). usage: pillow_tasks.py TASK OUTPUT INPUT… (a batch when several inputs)."""
import os
import sys

from PIL import Image, ImageDraw, ImageOps

MASKS = {}


def circle_mask(size):
    if size not in MASKS:
        big = Image.new("L", (size * 4, size * 4), 0)  # drawn 4x and reduced: an anti-aliased edge
        ImageDraw.Draw(big).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=255)
        MASKS[size] = big.resize((size, size), Image.LANCZOS)
    return MASKS[size]


def fit(image, box):
    image.draft("RGB", box)
    image = image.convert("RGB")
    image.thumbnail(box, Image.BILINEAR)
    return image


def cover(image, size):
    scale = max(size / image.width, size / image.height)
    image.draft("RGB", (int(image.width * scale), int(image.height * scale)))
    return ImageOps.fit(image.convert("RGB"), (size, size), Image.BILINEAR)


def run(task, source, output):
    image = Image.open(source)
    if task == "fit":
        fit(image, (1280, 720)).save(output, quality=90, subsampling=2)
    elif task == "letterbox":
        small = fit(image, (1280, 720))
        canvas = Image.new("RGB", (1280, 720), "black")
        canvas.paste(small, ((1280 - small.width) // 2, (720 - small.height) // 2))
        canvas.save(output, quality=90, subsampling=2)
    elif task == "slice":
        cover(image, 300).save(output, quality=90, subsampling=2)
    else:
        avatar = cover(image, 512).convert("RGBA")
        avatar.putalpha(circle_mask(512))
        avatar.save(output, compress_level=6)


task, output, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
if len(inputs) == 1:
    run(task, inputs[0], output)
else:
    for path in inputs:
        run(task, path, os.path.join(output, os.path.splitext(os.path.basename(path))[0] + ".png"))
