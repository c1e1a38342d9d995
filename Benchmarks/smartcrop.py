#!/usr/bin/python3
"""Smart crop against hand-marked subjects, for `make bench`.

Each photo of smartcrop_subjects.json is cut to a 400x400 thumbnail around what matters, by
ImagePipe (`resize 400x400 position=attention`) and by libvips (`vipsthumbnail -s 400x400
--smartcrop attention`). The score of a window is the share of the subject box it keeps
(1: the whole subject; a subject wider than the window can keep at most the window's share).
ImagePipe's window comes from `run --json` (its notes); libvips does not say its window, so it
is found by matching the thumbnail against libvips' own cover-sized shrink of the photo.

usage: smartcrop.py IMAGEPIPE [WALLPAPER_ROOT]
  WALLPAPER_ROOT: where the bench unpacked Debian's wallpaper packages (Benchmarks/work/root)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 400


def path_of(name, root):
    kind, rest = name.split("/", 1)
    if kind == "mate":
        return os.path.join(root, "usr/share/backgrounds/mate", rest)
    if kind == "plasma":
        return os.path.join(root, "usr/share/wallpapers", rest, "contents/images/2560x1600.jpg")
    return os.path.join(HERE, "..", "Samples", "images", rest)


def coverage(window, box):
    """The share of `box` (fractions) inside `window` (fractions)."""
    left, top = max(window[0], box[0]), max(window[1], box[1])
    right, bottom = min(window[2], box[2]), min(window[3], box[3])
    inside = max(0.0, right - left) * max(0.0, bottom - top)
    return inside / ((box[2] - box[0]) * (box[3] - box[1]))


def imagepipe_window(imagepipe, photo, width, height, work):
    out = subprocess.run([imagepipe, "run", "-e", f"resize {SIZE}x{SIZE} position=attention", photo, "-o", os.path.join(work, "ours.png"),
                          "--json", "--overwrite"], capture_output=True, text=True)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    value = line["notes"][0]["value"]
    return (value["x"] / width, value["y"] / height, (value["x"] + value["width"]) / width, (value["y"] + value["height"]) / height)


def vips_window(photo, work):
    crop, full = os.path.join(work, "crop.png"), os.path.join(work, "full.png")
    subprocess.run(["vipsthumbnail", photo, "-s", f"{SIZE}x{SIZE}", "--smartcrop", "attention", "-o", crop], check=True)
    # The same shrink uncropped: the shorter side SIZE, as the crop's cover scale makes it.
    with Image.open(photo) as image:
        width, height = image.size
    scale = SIZE / min(width, height)
    subprocess.run(["vipsthumbnail", photo, "-s", f"{round(width * scale)}x{round(height * scale)}", "-o", full], check=True)
    a = np.asarray(Image.open(crop).convert("L"), np.float64)
    b = np.asarray(Image.open(full).convert("L"), np.float64)
    best = None
    for dy in range(b.shape[0] - a.shape[0] + 1):
        for dx in range(b.shape[1] - a.shape[1] + 1):
            error = np.mean((b[dy:dy + a.shape[0], dx:dx + a.shape[1]] - a) ** 2)
            if best is None or error < best[0]:
                best = (error, dx, dy)
    _, dx, dy = best
    return (dx / b.shape[1], dy / b.shape[0], (dx + a.shape[1]) / b.shape[1], (dy + a.shape[0]) / b.shape[0])


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    imagepipe = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "work", "root")
    subjects = json.load(open(os.path.join(HERE, "smartcrop_subjects.json")))["photos"]
    totals = {"imagepipe": 0.0, "libvips": 0.0}
    print("| photo | subject | ImagePipe keeps | libvips keeps |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        for name, box in subjects.items():
            photo = path_of(name, root)
            with Image.open(photo) as image:
                width, height = image.size
            ours = coverage(imagepipe_window(imagepipe, photo, width, height, work), box)
            theirs = coverage(vips_window(photo, work), box)
            totals["imagepipe"] += ours
            totals["libvips"] += theirs
            print(f"| {name} | {box} | {ours:.2f} | {theirs:.2f} |")
    count = len(subjects)
    print(f"| mean of {count} | | {totals['imagepipe'] / count:.3f} | {totals['libvips'] / count:.3f} |")


if __name__ == "__main__":
    main()
