"""ImagePipe's tone and filter stages against Pillow and libvips on real photos, each with the
tolerance it must hold (exit status 1 if one does not). Not part of `make test`: it needs
`vips` and Pillow, which `make bench` installs.

What is compared, and why the tolerances are what they are:
- grayscale vs Rec. 709 luma of linear light computed here in float64 from the definition:
  ±1 level. And, for the record, vs `vips colourspace b-w`, which weighs linear light too but
  with the weights rounded to 0.2, 0.7, 0.1 (pure red gives 124 there, 127 here; blue 89, 76):
  ±8.
- blur 3 vs `vips gaussblur 3 --precision float --min-ampl 0.011` (a float Gaussian sampled at the
  pixel centres and cut at 3σ, as `blur`'s): ±1 level.
- median 5 vs Pillow's MedianFilter(5): exact.
- gamma 1.8 and negate vs Pillow's point tables: exact.
- convolve 3x3 0,-1,0,-1,5,-1,0,-1,0 vs Pillow's Kernel filter, inside a one-pixel border
  (Pillow copies border pixels unfiltered): exact after rounding, ±1.
- flatten vs Pillow's alpha_composite over white, on a circle-crop: ±1.

usage: python3 Benchmarks/filter_check.py IMAGEPIPE"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageFilter, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = [os.path.join(HERE, "..", "Samples", "images", name) for name in ("boats.jpg", "cups.jpg", "leaf.jpg", "forest-portrait.jpg")]


def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def pixels(path, mode="RGB"):
    return np.asarray(Image.open(path).convert(mode)).astype(int)


def main():
    imagepipe = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp()
    rows, failed = [], False

    def check(name, photo, ours, theirs, tolerance, inset=0):
        nonlocal failed
        if inset:
            ours, theirs = ours[inset:-inset, inset:-inset], theirs[inset:-inset, inset:-inset]
        difference = np.abs(ours - theirs)
        worst, beyond = int(difference.max()), float((difference > 0).mean() * 100)
        ok = worst <= tolerance
        failed |= not ok
        rows.append((name, os.path.basename(photo), worst, beyond, tolerance, ok))

    for photo in PHOTOS:
        source = os.path.join(work, "source.png")  # one decode for every tool
        run(imagepipe, "run", "-e", "load", photo, "-o", source, "-q")
        original = Image.open(source).convert("RGB")

        def ours(text, name, mode="RGB"):
            out = os.path.join(work, name + ".png")
            run(imagepipe, "run", "-e", text, source, "-o", out, "-q")
            return pixels(out, mode)

        gray = ours("grayscale", "gray")[:, :, 0]
        v = np.asarray(original).astype(np.float64) / 255
        linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
        y = linear @ np.array([0.2126, 0.7152, 0.0722])
        encoded = np.where(y <= 0.0031308, y * 12.92, 1.055 * np.maximum(y, 0) ** (1 / 2.4) - 0.055)
        check("grayscale vs Rec. 709 luma of linear light (float64)", photo, gray, np.rint(encoded * 255).astype(int), 1)
        vips_bw = os.path.join(work, "vips-bw.png")
        run("vips", "colourspace", source, vips_bw, "b-w")
        check("grayscale vs vips colourspace b-w (weights 0.2, 0.7, 0.1)", photo, gray, pixels(vips_bw, "L"), 8)

        vips_blur = os.path.join(work, "vips-blur.png")
        run("vips", "gaussblur", source, vips_blur, "3", "--precision", "float", "--min-ampl", "0.011")
        check("blur 3 vs vips gaussblur float 3σ", photo, ours("blur 3", "blur"), pixels(vips_blur), 1)

        check("median 5 vs Pillow MedianFilter(5)", photo, ours("median 5", "median"),
              np.asarray(original.filter(ImageFilter.MedianFilter(5))).astype(int), 0)
        check("gamma 1.8 vs Pillow point", photo, ours("gamma 1.8", "gamma"),
              np.asarray(original.point(lambda v: int(round(255 * (v / 255) ** (1 / 1.8))))).astype(int), 0)
        check("negate vs Pillow invert", photo, ours("negate", "negate"), np.asarray(ImageOps.invert(original)).astype(int), 0)
        kernel = ImageFilter.Kernel((3, 3), [0, -1, 0, -1, 5, -1, 0, -1, 0], scale=1)
        check("convolve 3x3 sharpen vs Pillow Kernel", photo, ours("convolve 3x3 0,-1,0,-1,5,-1,0,-1,0", "convolve"),
              np.asarray(original.filter(kernel)).astype(int), 1, inset=1)

        avatar = os.path.join(work, "avatar.png")
        run(imagepipe, "run", "-e", "circle-crop size=256", source, "-o", avatar, "-q")
        flat = os.path.join(work, "flat.png")
        run(imagepipe, "run", "-e", "flatten", avatar, "-o", flat, "-q")
        white = Image.new("RGBA", (256, 256), (255, 255, 255, 255))
        white.alpha_composite(Image.open(avatar).convert("RGBA"))
        check("flatten vs Pillow alpha_composite", photo, pixels(flat), np.asarray(white.convert("RGB")).astype(int), 1)

    print("| check | photo | largest difference | pixels differing % | tolerance | |")
    print("|---|---|---:|---:|---:|---|")
    for name, photo, worst, beyond, tolerance, ok in rows:
        print(f"| {name} | {photo} | {worst} | {beyond:.2f} | {tolerance} | {'ok' if ok else 'FAILED'} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
