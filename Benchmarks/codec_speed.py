#!/usr/bin/python3
"""TIFF and PNG decode and encode, for `make bench`: time and peak memory of ImagePipe against
libvips, Pillow and ImageMagick (each when installed), in one run, side by side.

The input is made here: a 5000x5000 RGB photograph (Samples/images/boats.jpg, mirrored and
tiled to size, so that it has a photo's detail everywhere), written by Pillow as PNG (zlib
level 6) and by libvips as TIFF in each layout and compression measured. Each task reads the
file, decodes every pixel and writes the same format with the same settings:

  TIFF strips, deflate   imagepipe run -e 'save tiff-compression=deflate' in.tif -o out.tif
                         vips copy in.tif out.tif[compression=deflate,predictor=horizontal]
  TIFF strips, none / lzw / jpeg q80, and 256x256 tiles with deflate: likewise
  PNG, level 6           imagepipe run in.png -o out.png   /   vips copy in.png out.png[compression=6,filter=all]

Pillow's and ImageMagick's commands are the same work through their own APIs. Time is the best
wall time of ROUNDS runs, memory the peak resident set of one; the output is decoded again and
checked against the input (lossless tasks must be exact; the JPEG task's PSNR is shown), so a
tool that skipped work would show. Ratios are to libvips' time and memory.

Then libvips' own "Speed and Memory Use" task on the same picture as a tiled TIFF (256x256,
uncompressed), in and out: crop 100 pixels off each edge, shrink by 10 % with a bilinear
kernel, a 3x3 sharpening convolution, save. libvips runs it as its benchmark does, in one
pyvips process with sequential access (pyvips is installed by `make bench` into
Benchmarks/work/pylib); ImagePipe as one pipeline:

  crop 100,100,4800x4800 | resize 4320x4320 kernel=linear | convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8 | save tile=256 tiff-compression=none

usage: codec_speed.py IMAGEPIPE
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIDE = int(os.environ.get("CODECS_SIDE", 5000))  # smaller for a quick try of the script
ROUNDS = int(os.environ.get("CODECS_ROUNDS", 3))  # CODECS_TASKS: below, in main

# name: (input file, ImagePipe save options, vips save options, Pillow save kwargs, ImageMagick options)
TASKS = {
    "TIFF strips, deflate": ("in-deflate.tif", "tiff-compression=deflate", "compression=deflate,predictor=horizontal",
                             {"compression": "tiff_adobe_deflate"}, "-compress zip -define tiff:predictor=2"),
    "TIFF strips, none": ("in-none.tif", "tiff-compression=none", "compression=none", {}, "-compress none"),
    "TIFF strips, lzw": ("in-lzw.tif", "tiff-compression=lzw", "compression=lzw,predictor=horizontal",
                         {"compression": "tiff_lzw"}, "-compress lzw -define tiff:predictor=2"),
    "TIFF strips, jpeg q80": ("in-jpeg.tif", "tiff-compression=jpeg quality=80", "compression=jpeg,Q=80",
                              {"compression": "jpeg", "quality": 80}, "-compress jpeg -quality 80"),
    "TIFF tiles 256, deflate": ("in-tiled.tif", "tiff-compression=deflate tile=256",
                                "compression=deflate,predictor=horizontal,tile,tile-width=256,tile-height=256",
                                None, "-compress zip -define tiff:predictor=2 -define tiff:tile-geometry=256x256"),
    # libvips filters no row by default; filter=all chooses each row's filter, as ImagePipe,
    # Pillow and ImageMagick do, so that all four do the same work.
    "PNG, level 6": ("in.png", "compression=6", "compression=6,filter=all", {"compress_level": 6}, "-quality 65"),
}


def make_inputs(work):
    photo = Image.open(os.path.join(HERE, "..", "Samples", "images", "boats.jpg")).convert("RGB")
    w, h = photo.size
    canvas = Image.new("RGB", (SIDE, SIDE))
    flips = [photo, photo.transpose(Image.FLIP_LEFT_RIGHT), photo.transpose(Image.FLIP_TOP_BOTTOM), photo.transpose(Image.ROTATE_180)]
    for row, y in enumerate(range(0, SIDE, h)):
        for column, x in enumerate(range(0, SIDE, w)):
            canvas.paste(flips[(row % 2) * 2 + column % 2], (x, y))
    canvas.save(f"{work}/in.png", compress_level=6)
    canvas.save(f"{work}/source.ppm")
    for name, (file, _, vips, _, _) in TASKS.items():
        if file.endswith(".tif"):
            subprocess.run(["vips", "copy", f"{work}/source.ppm", f"{work}/{file}[{vips}]"], check=True)


def measure(command, work):
    """Wall seconds and peak resident MiB of one run of `command`, the peak as GNU time reports
    it: Linux counts a child's peak from the moment it is forked, so a child of this Python
    process would start at its size."""
    report = f"{work}/time.txt"
    start = time.perf_counter()
    run = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report, "/bin/sh", "-c", command],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"failed: {command}\n{run.stderr}")
    return seconds, int(open(report).read().split()[-1]) / 1024


def commands(imagepipe, work, task, out):
    """{tool: (shell command, the file it writes)} for one task."""
    file, ours, vips, pillow, magick = TASKS[task]
    source, ext = f"{work}/{file}", os.path.splitext(file)[1]
    written = {tool: f"{out}-{tool.lower()}{ext}" for tool in ["ImagePipe", "libvips", "Pillow", "ImageMagick"]}
    tools = {
        "ImagePipe": f"{imagepipe} run -q -e 'save {ours}' {source} -o {written['ImagePipe']}",
        "libvips": f"vips copy {source} '{written['libvips']}[{vips}]'",
    }
    if pillow is not None:
        tools["Pillow"] = f"/usr/bin/python3 -c \"from PIL import Image; Image.open('{source}').save('{written['Pillow']}', **{pillow!r})\""
    if has_imagemagick():
        tools["ImageMagick"] = f"convert {source} {magick} {written['ImageMagick']}"
    return {tool: (command, written[tool]) for tool, command in tools.items()}


PYLIB = os.path.join(HERE, "work", "pylib")
SPEED_TASK = "libvips' Speed and Memory task, tiled TIFF"
# libvips' task in one pyvips process, sequential access; `options` are the save's (engine.py
# uses it too, writing JPEG).
PYVIPS_TASK = """import sys
sys.path.insert(0, {pylib!r})
import pyvips
im = pyvips.Image.new_from_file({source!r}, access='sequential')
im = im.crop(100, 100, im.width - 200, im.height - 200)
im = im.reduce(1.0 / 0.9, 1.0 / 0.9, kernel='linear')
mask = pyvips.Image.new_from_array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], scale=8)
im = im.conv(mask, precision='integer')
im.write_to_file({out!r} + {options!r})
"""


def speed_task(imagepipe, work):
    """{tool: (command, file written)} for libvips' Speed and Memory task, or {} without pyvips."""
    source = f"{work}/in-speed.tif"
    if not os.path.exists(source):
        subprocess.run(["vips", "copy", f"{work}/source.ppm", f"{source}[tile,tile-width=256,tile-height=256,compression=none]"], check=True)
    inner = SIDE - 200
    pipeline = (f"crop 100,100,{inner}x{inner} | resize {inner * 9 // 10}x{inner * 9 // 10} kernel=linear "
                "| convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8 | save tile=256 tiff-compression=none")
    tools = {"ImagePipe": (f"{imagepipe} run -q -e '{pipeline}' {source} -o {work}/speed-imagepipe.tif", f"{work}/speed-imagepipe.tif")}
    script = f"{work}/speed.py"
    open(script, "w").write(PYVIPS_TASK.format(pylib=PYLIB, source=source, out=f"{work}/speed-libvips.tif",
                                                 options="[tile,tile-width=256,tile-height=256,compression=none]"))
    if subprocess.run(["/usr/bin/python3", script], capture_output=True).returncode == 0:
        tools["libvips"] = (f"/usr/bin/python3 {script}", f"{work}/speed-libvips.tif")
    return tools


def has_imagemagick():
    try:
        return "ImageMagick" in subprocess.run(["convert", "-version"], capture_output=True, text=True).stdout
    except OSError:
        return False


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    imagepipe = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="imagepipe-codecs-")
    try:
        make_inputs(work)
        print(f"Read, decode and write again a {SIDE}x{SIDE} RGB photo; best of {ROUNDS}; ratios to libvips.\n")
        print("| task | tool | time | × libvips | peak MiB | × libvips | bytes | check |")
        print("|---|---|---|---|---|---|---|---|")
        # CODECS_TASKS="TIFF strips, none;PNG, level 6" measures only those.
        chosen = [task for task in os.environ.get("CODECS_TASKS", "").split(";") if task]
        for task in chosen or list(TASKS) + [SPEED_TASK]:
            out = f"{work}/out-{len(task)}"
            tools = speed_task(imagepipe, work) if task == SPEED_TASK else commands(imagepipe, work, task, out)
            if "libvips" not in tools:
                print(f"| {task} | (pyvips is not installed: python3 -m pip install --target {PYLIB} pyvips) | | | | | | |")
                continue
            results = {}
            for tool, (command, _) in tools.items():
                times, peak = [], 0.0
                for _ in range(ROUNDS):
                    seconds, mib = measure(command, work)
                    times.append(seconds)
                    peak = max(peak, mib)
                results[tool] = (min(times), peak)
            base_time, base_peak = results["libvips"]
            reference = np.asarray(Image.open(f"{work}/source.ppm"))
            for tool, (seconds, peak) in results.items():
                written = tools[tool][1]
                decoded = np.asarray(Image.open(written).convert("RGB"))
                quality = psnr(decoded, reference) if decoded.shape == reference.shape else None
                if task == SPEED_TASK:
                    # The same work: each output against libvips' (the kernels' rounding differs).
                    other = np.asarray(Image.open(tools["libvips"][1]).convert("RGB"))
                    check = f"{psnr(decoded, other):.2f} dB against libvips'" if decoded.shape == other.shape else f"size {decoded.shape}"
                elif "jpeg" in task:
                    check = f"{quality:.2f} dB"
                else:
                    check = "exact" if quality == float("inf") else f"NOT EXACT ({quality:.2f} dB)"
                print(f"| {task} | {tool} | {seconds:.3f} s | {seconds / base_time:.2f} | {peak:.1f} | {peak / base_peak:.2f} | "
                      f"{os.path.getsize(written):,} | {check} |")
                del decoded
            del reference
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
