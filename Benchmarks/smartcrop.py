#!/usr/bin/python3
"""Smart crop against hand-marked subjects, for `make bench`.

Each photo of smartcrop_subjects.json is cut to a 400x400 thumbnail around what matters, by
ImagePipe (`resize 400x400 fit=cover position=attention`) and by libvips (`vipsthumbnail -s
400x400 --smartcrop attention`). The score of a window is the share of the subject box it keeps
(1: the whole subject; a subject wider than the window can keep at most the window's share).
ImagePipe's window comes from `run --json` (its notes); libvips does not say its window, so it
is found by matching the thumbnail against libvips' own cover-sized shrink of the photo.

Three sets, each its own table. The attention score was tuned on the first two: "photos"
(the bench's wallpapers) and "heldout" (photos from other Debian packages, held out at first,
then looked at and so tuned on too). "heldout2" (photos from yet other packages) was marked
before any crop was run on it and is the one that says how the score does on photos it was
not tuned on. A subject is lost where a window keeps less than half of it; the last line of
each table counts the subjects lost where libvips keeps at least 0.9 of them. The packages are
fetched with `apt-get download` and unpacked under Benchmarks/work the first time.

usage: smartcrop.py IMAGEPIPE [WALLPAPER_ROOT] [--set tuning|heldout|heldout2|all]
  WALLPAPER_ROOT: where the bench unpacked Debian's wallpaper packages (Benchmarks/work/root)
"""
import argparse
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIZE = 400
TUNING_PACKAGES = ["mate-backgrounds", "plasma-workspace-wallpapers"]
HELDOUT_ROOT = os.path.join(HERE, "work", "heldout")
HELDOUT2_ROOT = os.path.join(HERE, "work", "heldout2")
# Where each kind of name lives in its unpacked package.
FOLDERS = {
    "mate": "usr/share/backgrounds/mate",
    "lomiri": "usr/share/backgrounds",
    "skimage": "usr/lib/python3/dist-packages/skimage/data",
    "opencv": "usr/share/doc/opencv-doc/examples",
    "tuxpaint": "usr/share/tuxpaint/templates",
    "gcompris": "gcompris/src/activities",  # unpacked from the package's Qt resource files
    "lxqt": "usr/share/lxqt/wallpapers",
    "sklearn": "usr/lib/python3/dist-packages/sklearn/datasets/images",
    "matplotlib": "usr/share/matplotlib/mpl-data/sample_data",
    "palapeli": "usr/share/palapeli/collection",
    "kodi": "usr/share/kodi/addons/skin.estuary/extras/home-images",
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


def qt_resources(path):
    """The files of a Qt resource file (rcc, format 1 to 3) as (path, bytes): gcompris-qt-data
    keeps its photos in them. The header gives the offsets of the tree (fixed-size nodes), the
    data and the names; a node is a folder (its children's range) or a file (its data's
    offset), and a file's data may be zlib-compressed after a 4-byte size."""
    blob = open(path, "rb").read()
    if blob[:4] != b"qres":
        raise ValueError(f"{path}: not a Qt resource file")
    version, tree, data, names = struct.unpack(">IIII", blob[4:20])
    node_size = 14 if version == 1 else 22

    def name(offset):
        length = struct.unpack(">H", blob[names + offset:names + offset + 2])[0]
        return blob[names + offset + 6:names + offset + 6 + 2 * length].decode("utf-16-be")

    def walk(index, folder):
        base = tree + index * node_size
        name_offset, flags = struct.unpack(">IH", blob[base:base + 6])
        here = f"{folder}/{name(name_offset)}" if index else ""
        if flags & 2:
            count, first = struct.unpack(">II", blob[base + 6:base + 14])
            for child in range(first, first + count):
                yield from walk(child, here)
        else:
            offset = data + struct.unpack(">I", blob[base + 10:base + 14])[0]
            length = struct.unpack(">I", blob[offset:offset + 4])[0]
            payload = blob[offset + 4:offset + 4 + length]
            yield here.lstrip("/"), zlib.decompress(payload[4:]) if flags & 1 else payload

    yield from walk(0, "")


def unpack_gcompris(names, root):
    """The gcompris photos among `names`, from their activity's resource file into `root`."""
    for activity in sorted({name.split("/")[1] for name in names if name.startswith("gcompris/")}):
        for inner, payload in qt_resources(os.path.join(root, "usr/share/gcompris-qt/rcc", f"{activity}.rcc")):
            target = os.path.join(root, inner)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(payload)


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
    return count, totals


def main():
    parser = argparse.ArgumentParser(description="Smart crop against hand-marked subjects.")
    parser.add_argument("imagepipe")
    parser.add_argument("root", nargs="?", default=os.path.join(HERE, "work", "root"),
                        help="where the bench unpacked Debian's wallpaper packages")
    parser.add_argument("--set", choices=["tuning", "heldout", "heldout2", "all"], default="all",
                        help="tuning: the two sets tuned on (photos and heldout); heldout2: the one never tuned on")
    arguments = parser.parse_args()
    subjects = json.load(open(os.path.join(HERE, "smartcrop_subjects.json")))
    tuned = []
    with tempfile.TemporaryDirectory() as work:
        if arguments.set in ("tuning", "all"):
            if not os.path.isdir(os.path.join(arguments.root, "usr")):
                unpack(TUNING_PACKAGES, arguments.root)
            tuned.append(measure(arguments.imagepipe, "Tuning set: the bench's wallpapers", subjects["photos"],
                                 arguments.root, work))
        if arguments.set in ("tuning", "heldout", "all"):
            unpack(subjects["heldout"]["packages"], HELDOUT_ROOT)
            tuned.append(measure(arguments.imagepipe, "Tuning set: the first held-out set (tuned on since)",
                                 subjects["heldout"]["photos"], HELDOUT_ROOT, work))
        if len(tuned) == 2:
            count = sum(c for c, _ in tuned)
            ours, theirs = (sum(t[key] for _, t in tuned) / count for key in ("imagepipe", "libvips"))
            print(f"\nWhole tuning set: mean of {count}: ImagePipe {ours:.3f}, libvips {theirs:.3f}")
        if arguments.set in ("heldout2", "all"):
            held = subjects["heldout2"]
            unpack(held["packages"], HELDOUT2_ROOT)
            unpack_gcompris(held["photos"], HELDOUT2_ROOT)
            measure(arguments.imagepipe, "Held-out set: never tuned on", held["photos"], HELDOUT2_ROOT, work)


if __name__ == "__main__":
    main()
