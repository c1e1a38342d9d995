#!/usr/bin/python3
"""JPEG and WebP default settings against libvips', sharp's and Pillow's defaults, for `make bench`.

Each photo is made into a thumbnail that fits 640x640, by each tool at its own default settings
for the format:

  * libvips: `vipsthumbnail PHOTO -s 640 -o OUT` (jpegsave: Q 75, 4:2:0 below Q 90, no Huffman
    optimization; webpsave: Q 75, effort 4);
  * sharp's defaults (JPEG quality 80, 4:2:0, no Huffman optimization; WebP quality 80, effort
    4), through libvips as sharp calls it: `vips thumbnail PHOTO OUT[Q=80] 640` (sharp is not
    installed here);
  * Pillow: `thumbnail((640, 640), LANCZOS)` then `save` with its defaults (JPEG quality 75,
    4:2:0; WebP quality 80, method 4);
  * ImagePipe: `imagepipe run -e 'resize 640x640' PHOTO -o OUT`, with the candidate `save`
    settings given on the command line.

Each output's SSIM is measured against the float Lanczos3 reference of the same size
(quality.py), so the score is what the thumbnail shows of the photo: resampling and coding loss
together. The table gives bytes and SSIM per tool, summed and averaged over the photos.

usage: save_defaults.py IMAGEPIPE [--format jpeg|webp] PHOTO... [--candidates 'quality=80' 'quality=75' ...]
"""
import os
import subprocess
import sys
import tempfile

from PIL import Image

import quality

EXTENSIONS = {"jpeg": "jpg", "webp": "webp"}


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    arguments = sys.argv[1:]
    if len(arguments) < 2:
        print(__doc__)
        sys.exit(2)
    imagepipe, arguments = arguments[0], arguments[1:]
    form = "jpeg"
    if arguments[:1] == ["--format"]:
        form, arguments = arguments[1], arguments[2:]
    if form not in EXTENSIONS:
        print(__doc__)
        sys.exit(2)
    if "--candidates" in arguments:
        split = arguments.index("--candidates")
        photos, candidates = arguments[:split], arguments[split + 1:]
    else:
        photos, candidates = arguments, [""]
    tools = {
        "libvips (vipsthumbnail)": lambda photo, out: run(["vipsthumbnail", photo, "-s", "640", "-o", out]),
        "sharp's defaults (via libvips)": lambda photo, out: run(["vips", "thumbnail", photo, out + "[Q=80]", "640"]),
        "Pillow": lambda photo, out: pillow(photo, out),
    }
    for candidate in candidates:
        name = f"imagepipe {candidate or '(defaults)'}"
        pipeline = "resize 640x640" + (f" | save {candidate}" if candidate else "")
        tools[name] = lambda photo, out, pipeline=pipeline: run([imagepipe, "run", "-e", pipeline, photo, "-o", out])
    totals = {tool: [0, 0.0] for tool in tools}
    with tempfile.TemporaryDirectory() as work:
        for photo in photos:
            decoded = quality.decode(photo)
            for index, (tool, make) in enumerate(tools.items()):
                out = os.path.join(work, f"{index}.{EXTENSIONS[form]}")
                make(photo, out)
                thumbnail = quality.load_output(out)
                height, width = thumbnail.shape[:2]
                reference = quality.reference(photo, width, height, decoded=decoded)
                totals[tool][0] += os.path.getsize(out)
                totals[tool][1] += quality.ssim(thumbnail, reference)
    vips_bytes = totals["libvips (vipsthumbnail)"][0]
    print(f"{len(photos)} photos, {form.upper()} thumbnails fitting 640x640")
    print("| tool and settings | bytes | ÷ libvips | mean SSIM |")
    print("|---|---:|---:|---:|")
    for tool, (size, ssim) in totals.items():
        print(f"| {tool} | {size} | {size / vips_bytes:.2f} | {ssim / len(photos):.4f} |")


def pillow(photo, out):
    image = Image.open(photo).convert("RGB")
    image.thumbnail((640, 640), Image.LANCZOS)
    image.save(out)


if __name__ == "__main__":
    main()
