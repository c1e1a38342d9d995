#!/usr/bin/python3
"""JPEG XL: ImagePipe against libjxl's own cjxl/djxl and libvips (both on Debian's libjxl 0.7),
on size, time, PSNR and SSIM. The figures of docs/formats.md's JPEG XL section.

The photos are PNG, so that every tool starts from the same pixels: Samples/images/boats.jpg
decoded once (1280x800), and libjxl-testdata's flower.png (2268x1512). Each is encoded

  lossy, distance 1.0 (quality 90), effort 7:
      cjxl in.png out.jxl -d 1 -e 7
      vips copy in.png out.jxl[Q=90,effort=7]
      imagepipe run -e 'save quality=90 effort=7' in.png -o out.jxl
  lossless, effort 7:
      cjxl in.png out.jxl -d 0 -e 7
      vips copy in.png out.jxl[lossless,effort=7]
      imagepipe run -e 'save lossless=true effort=7' in.png -o out.jxl

and cjxl's lossy file is decoded to PNG by each (djxl out.jxl x.png; vips copy out.jxl x.png;
imagepipe run -e save out.jxl -o x.png), a PNG encode included in all three. Time is the best wall time
of ROUNDS runs. Every .jxl is decoded by djxl and compared with the source by quality.py's PSNR
and SSIM (lossless files must be exact).

usage: /usr/bin/python3 Benchmarks/jxl_compare.py IMAGEPIPE [WORKDIR]  (Debian's Python: Pillow, NumPy)
"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402

ROUNDS = 3
HERE = os.path.dirname(os.path.abspath(__file__))


def best_time(command):
    best = None
    for _ in range(ROUNDS):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def pixels(path):
    return np.asarray(quality.load_output(path), dtype=np.float64)


def main(argv):
    imagepipe = os.path.abspath(argv[1])
    work = os.path.abspath(argv[2] if len(argv) > 2 else os.path.join(HERE, "work", "jxl"))
    os.makedirs(work, exist_ok=True)
    boats = os.path.join(work, "boats.png")
    subprocess.run([imagepipe, "run", "-e", "save", os.path.join(HERE, "..", "Samples", "images", "boats.jpg"), "-o", boats], check=True)
    photos = [("boats 1280x800", boats), ("flower 2268x1512", "/usr/share/libjxl-testdata/jxl/flower/flower.png")]
    print("| photo | task | tool | bytes | time (s) | PSNR (dB) | SSIM |")
    print("|---|---|---|---|---|---|---|")
    for name, source in photos:
        reference = pixels(source)
        for task, cjxl, vips, ours in [
            ("lossy d1 e7", ["-d", "1", "-e", "7"], "[Q=90,effort=7]", "save quality=90 effort=7"),
            ("lossless e7", ["-d", "0", "-e", "7"], "[lossless,effort=7]", "save lossless=true effort=7"),
        ]:
            slug = task.split()[0]
            for tool, command, out in [
                ("cjxl", lambda o: ["cjxl", source, o] + cjxl, "cjxl"),
                ("vips", lambda o: ["vips", "copy", source, o + vips], "vips"),
                ("ImagePipe", lambda o: [imagepipe, "run", "-e", ours, source, "-o", o], "imagepipe"),
            ]:
                output = os.path.join(work, f"{os.path.basename(source)}.{slug}.{out}.jxl")
                seconds = best_time(command(output))
                decoded = output + ".png"
                subprocess.run(["djxl", output, decoded], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                result = pixels(decoded)
                print(f"| {name} | {task} | {tool} | {os.path.getsize(output)} | {seconds:.2f} | "
                      f"{quality.psnr(result, reference):.2f} | {quality.ssim(result, reference):.4f} |")
        lossy = os.path.join(work, f"{os.path.basename(source)}.lossy.cjxl.jxl")
        for tool, command in [
            ("djxl", ["djxl", lossy, os.path.join(work, "d.png")]),
            ("vips", ["vips", "copy", lossy, os.path.join(work, "v.png")]),
            ("ImagePipe", [imagepipe, "run", "-e", "save", lossy, "-o", os.path.join(work, "i.png")]),
        ]:
            print(f"| {name} | decode to PNG | {tool} | | {best_time(command):.2f} | | |")


if __name__ == "__main__":
    main(sys.argv)
