"""The benchmark tasks in Pillow, written as a Pillow user would (draft mode for JPEG
shrink-on-load). usage: pillow_tasks.py TASK OUTPUT INPUT… (a batch when several inputs).

TASK is fit, letterbox, slice or avatar, optionally followed by @WxH (fit's box, default
1280x720) and by +lanczos (LANCZOS from the full-size decode, as the quality measurement's peer)
or +lanczos+draft (LANCZOS after draft mode). Without +lanczos: draft mode, then BILINEAR (for
fit, thumbnail()'s default reducing_gap=2.0: a box reduce() first), the timed variant."""
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


LANCZOS = False  # +lanczos
DRAFT = True  # without +lanczos, or with +draft
BOX = (1280, 720)  # @WxH


def fit(image, box):
    if DRAFT:
        image.draft("RGB", box)
    image = image.convert("RGB")
    if LANCZOS:
        image.thumbnail(box, Image.LANCZOS, reducing_gap=None)
    else:
        image.thumbnail(box, Image.BILINEAR)
    return image


def cover(image, size):
    scale = max(size / image.width, size / image.height)
    if DRAFT:
        image.draft("RGB", (int(image.width * scale), int(image.height * scale)))
    return ImageOps.fit(image.convert("RGB"), (size, size), Image.LANCZOS if LANCZOS else Image.BILINEAR)


def run(task, source, output):
    image = Image.open(source)
    if task == "fit":
        fit(image, BOX).save(output, quality=90, subsampling=2)
    elif task == "letterbox":
        small = fit(image, BOX)
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
task, *flags = task.split("+")
task, _, box = task.partition("@")
if box:
    BOX = tuple(int(v) for v in box.split("x"))
LANCZOS = "lanczos" in flags
DRAFT = not LANCZOS or "draft" in flags
if len(inputs) == 1:
    run(task, inputs[0], output)
else:
    for path in inputs:
        run(task, path, os.path.join(output, os.path.splitext(os.path.basename(path))[0] + ".png"))
