#!/usr/bin/python3
"""Smart crop against hand-marked subjects, for `make bench`.

Each photo of smartcrop_subjects.json is cut to a 400x400 thumbnail around what matters, by
ImagePipe (`resize 400x400 fit=cover position=attention`) and by libvips (`vipsthumbnail -s
400x400 --smartcrop attention`). The score of a window is the share of the subject box it keeps
(1: the whole subject; a subject wider than the window can keep at most the window's share).
ImagePipe's window comes from `run --json` (its notes); libvips does not say its window, so it
is found by matching the thumbnail against libvips' own cover-sized shrink of the photo.

Two sets, each its own table: the tuning set ("photos": the bench's wallpapers, which the
attention score was tuned on) and the held-out set ("heldout": photos from other Debian
packages, never tuned on). A subject is lost where a window keeps less than half of it; the
last line of each table counts the subjects lost where libvips keeps at least 0.9 of them.
The packages are fetched with `apt-get download` and unpacked under Benchmarks/work the first
time.

usage: smartcrop.py IMAGEPIPE [WALLPAPER_ROOT] [--set tuning|heldout|both]
  WALLPAPER_ROOT: where the bench unpacked Debian's wallpaper packages (Benchmarks/work/root)
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 400
TUNING_PACKAGES = ["mate-backgrounds", "plasma-workspace-wallpapers"]
HELDOUT_ROOT = os.path.join(HERE, "work", "heldout")
# Where each kind of name lives in its unpacked package.
FOLDERS = {
    "mate": "usr/share/backgrounds/mate",
    "lomiri": "usr/share/backgrounds",
    "skimage": "usr/lib/python3/dist-packages/skimage/data",
    "opencv": "usr/share/doc/opencv-doc/examples",
    "tuxpaint": "usr/share/tuxpaint/templates",
}


def path_of(name, root):
    kind, rest = name.split("/", 1)
    if kind == "plasma":
        return os.path.join(root, "usr/share/wallpapers", rest, "contents/images/2560x1600.jpg")
    if kind == "samples":
        return os.path.join(HERE, "..", "Samples", "images", rest)
    return os.path.join(root, FOLDERS[kind], rest)


def unpack(packages, root):
    """Debian's packages downloaded and unpacked into `root`, once: the file `done` lists them."""
    done = os.path.join(root, "done")
    if os.path.exists(done) and open(done).read().split() == packages:
        return
    debs = os.path.join(root, "debs")
    os.makedirs(debs, exist_ok=True)
    subprocess.run(["apt-get", "download", *packages], cwd=debs, check=True)
    for deb in glob.glob(os.path.join(debs, "*.deb")):
        subprocess.run(["dpkg", "-x", deb, root], check=True)
    open(done, "w").write("\n".join(packages) + "\n")


def coverage(window, box):
    """The share of `box` (fractions) inside `window` (fractions)."""
    left, top = max(window[0], box[0]), max(window[1], box[1])
    right, bottom = min(window[2], box[2]), min(window[3], box[3])
    inside = max(0.0, right - left) * max(0.0, bottom - top)
    return inside / ((box[2] - box[0]) * (box[3] - box[1]))


def imagepipe_window(imagepipe, photo, width, height, work):
    out = subprocess.run([imagepipe, "run", "-e", f"resize {SIZE}x{SIZE} fit=cover position=attention", photo, "-o", os.path.join(work, "ours.png"),
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


def measure(imagepipe, title, subjects, root, work):
    """One table: each photo's share kept by ImagePipe and by libvips, the means and the losses."""
    totals = {"imagepipe": 0.0, "libvips": 0.0}
    lost = []
    print(f"\n{title}\n")
    print("| photo | subject | ImagePipe keeps | libvips keeps |")
    print("|---|---|---:|---:|")
    for name, box in subjects.items():
        photo = path_of(name, root)
        with Image.open(photo) as image:
            width, height = image.size
        ours = coverage(imagepipe_window(imagepipe, photo, width, height, work), box)
        theirs = coverage(vips_window(photo, work), box)
        totals["imagepipe"] += ours
        totals["libvips"] += theirs
        if ours < 0.5 and theirs >= 0.9:
            lost.append(name)
        print(f"| {name} | {box} | {ours:.2f} | {theirs:.2f} |")
    count = len(subjects)
    print(f"| mean of {count} | | {totals['imagepipe'] / count:.3f} | {totals['libvips'] / count:.3f} |")
    print(f"\nlost by ImagePipe (< 0.5) where libvips keeps them (>= 0.9): {len(lost)} {lost}")


def main():
    parser = argparse.ArgumentParser(description="Smart crop against hand-marked subjects.")
    parser.add_argument("imagepipe")
    parser.add_argument("root", nargs="?", default=os.path.join(HERE, "work", "root"),
                        help="where the bench unpacked Debian's wallpaper packages")
    parser.add_argument("--set", choices=["tuning", "heldout", "both"], default="both")
    arguments = parser.parse_args()
    subjects = json.load(open(os.path.join(HERE, "smartcrop_subjects.json")))
    with tempfile.TemporaryDirectory() as work:
        if arguments.set in ("tuning", "both"):
            if not os.path.isdir(os.path.join(arguments.root, "usr")):
                unpack(TUNING_PACKAGES, arguments.root)
            measure(arguments.imagepipe, "Tuning set (the photos position=attention was tuned on)", subjects["photos"],
                    arguments.root, work)
        if arguments.set in ("heldout", "both"):
            unpack(subjects["heldout"]["packages"], HELDOUT_ROOT)
            measure(arguments.imagepipe, "Held-out set (never tuned on)", subjects["heldout"]["photos"], HELDOUT_ROOT, work)


if __name__ == "__main__":
    main()
