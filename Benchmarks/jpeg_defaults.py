#!/usr/bin/python3
"""JPEG default settings against libvips' and sharp's defaults, for `make bench`.

Each photo is made into a thumbnail that fits 640x640, by each tool at its own default settings:

  * libvips: `vipsthumbnail PHOTO -s 640 -o OUT.jpg` (jpegsave's defaults: Q 75, 4:2:0 below
    Q 90, no Huffman optimization);
  * sharp's defaults (quality 80, 4:2:0, no Huffman optimization), through libvips as sharp
    calls it: `vips thumbnail PHOTO OUT.jpg[Q=80] 640` (sharp is not installed here);
  * Pillow: `thumbnail((640, 640), LANCZOS)` then `save` with its defaults (quality 75, 4:2:0);
  * ImagePipe: `imagepipe run -e 'resize 640x640 fit=inside' PHOTO -o OUT.jpg`, with the
    candidate `save` settings given on the command line.

Each output's SSIM is measured against the float Lanczos3 reference of the same size
(quality.py), so the score is what the thumbnail shows of the photo: resampling and JPEG loss
together. The table gives bytes and SSIM per tool, summed and averaged over the photos.

usage: jpeg_defaults.py IMAGEPIPE PHOTO... [--candidates 'quality=80' 'quality=75' ...]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

import quality


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    arguments = sys.argv[1:]
    if len(arguments) < 2:
        print(__doc__)
        sys.exit(2)
    imagepipe = arguments[0]
    if "--candidates" in arguments:
        split = arguments.index("--candidates")
        photos, candidates = arguments[1:split], arguments[split + 1:]
    else:
        photos, candidates = arguments[1:], [""]
    tools = {
        "libvips (vipsthumbnail)": lambda photo, out: run(["vipsthumbnail", photo, "-s", "640", "-o", out]),
        "sharp's defaults (via libvips)": lambda photo, out: run(["vips", "thumbnail", photo, out + "[Q=80]", "640"]),
        "Pillow": lambda photo, out: pillow(photo, out),
    }
    for candidate in candidates:
        name = f"imagepipe {candidate or '(defaults)'}"
        pipeline = "resize 640x640 fit=inside" + (f" | save {candidate}" if candidate else "")
        tools[name] = lambda photo, out, pipeline=pipeline: run([imagepipe, "run", "-e", pipeline, photo, "-o", out])
    totals = {tool: [0, 0.0] for tool in tools}
    with tempfile.TemporaryDirectory() as work:
        for photo in photos:
            decoded = quality.decode(photo)
            for index, (tool, make) in enumerate(tools.items()):
                out = os.path.join(work, f"{index}.jpg")
                make(photo, out)
                thumbnail = quality.load_output(out)
                height, width = thumbnail.shape[:2]
                reference = quality.reference(photo, width, height, decoded=decoded)
                totals[tool][0] += os.path.getsize(out)
                totals[tool][1] += quality.ssim(thumbnail, reference)
    vips_bytes = totals["libvips (vipsthumbnail)"][0]
    print(f"{len(photos)} photos, thumbnails fitting 640x640")
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
