#!/usr/bin/python3
"""Animated GIF thumbnails, for `make bench`: time, peak memory, output size and quality of
ImagePipe against libvips, Pillow and ImageMagick, in one run.

The input is made here: 100 frames of 480x270 cut from a photo with a window that pans and
drifts (what a screen recording or a short video looks like), written as a GIF by Pillow (an
adaptive palette per frame). Each tool makes a 240-px-wide animated GIF of every frame:

  ImagePipe    imagepipe run -e 'resize 240x' in.gif -o out.gif
  libvips      vips thumbnail in.gif[n=-1] out.gif 240
  Pillow       every frame resized with LANCZOS, saved with save_all (its own palettes)
  ImageMagick  convert in.gif -coalesce -resize 240x -layers Optimize out.gif

Time is the best wall time of ROUNDS runs; memory the peak resident set of one run. Quality is
the mean PSNR and SSIM over the frames of each output (decoded and composed by Pillow) against
the float Lanczos3 reference of the source frames (quality.py), so palette error and the
resampler both count. Output size is shown against libvips'.

usage: animation.py IMAGEPIPE
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image, ImageSequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FRAMES, WIDTH, HEIGHT, OUT_WIDTH = 100, 480, 270, 240
ROUNDS = 3


def make_input(path):
    photo = Image.open(os.path.join(HERE, "..", "Samples", "images", "boats.jpg")).convert("RGB")
    frames = []
    for i in range(FRAMES):
        x = round((photo.width - 640) * i / (FRAMES - 1))
        y = round(200 + 60 * np.sin(i / 9))
        frames.append(photo.crop((x, y, x + 640, y + 360)).resize((WIDTH, HEIGHT), Image.LANCZOS))
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=40, loop=0)


def measure(command):
    """Wall seconds and peak resident MiB of one run of `command`, the peak from GNU time: a
    child's peak counts the memory of the process it was forked from until its exec, and this
    one holds numpy and the frames."""
    with tempfile.NamedTemporaryFile(mode="r") as report:
        start = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, "/bin/sh", "-c", command],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"failed: {command}\n{done.stderr.decode()}")
        return seconds, int(report.read().split()[-1]) / 1024


def frames_of(path):
    """Each frame as Pillow composes it, float64 RGB."""
    return [np.asarray(frame.convert("RGB"), np.float64) for frame in ImageSequence.Iterator(Image.open(path))]


def has_imagemagick():
    found = shutil.which("convert")
    return found is not None and subprocess.run([found, "-version"], capture_output=True).returncode == 0


def main():
    imagepipe = sys.argv[1]
    work = tempfile.mkdtemp(prefix="imagepipe-animation-")
    source = os.path.join(work, "in.gif")
    make_input(source)
    out_height = round(HEIGHT * OUT_WIDTH / WIDTH)
    pillow = (f"/usr/bin/python3 -c \"from PIL import Image, ImageSequence; im = Image.open('{source}'); "
              f"fr = [f.convert('RGB').resize(({OUT_WIDTH}, {out_height}), Image.LANCZOS) for f in ImageSequence.Iterator(im)]; "
              f"fr[0].save('{{out}}', save_all=True, append_images=fr[1:], duration=40, loop=0)\"")
    tools = {
        "ImagePipe": f"{imagepipe} run -e 'resize {OUT_WIDTH}x' {source} -o {{out}} --overwrite",
        "libvips": f"vips thumbnail '{source}[n=-1]' {{out}} {OUT_WIDTH}",
        "Pillow": pillow,
    }
    if has_imagemagick():
        tools["ImageMagick"] = f"convert {source} -coalesce -resize {OUT_WIDTH}x -layers Optimize {{out}}"
    runs = {}
    for name, command in tools.items():
        out = os.path.join(work, name.lower() + ".gif")
        runs[name] = [measure(command.format(out=out)) for _ in range(ROUNDS)]
    references = [quality.resample(frame, OUT_WIDTH, out_height) for frame in frames_of(source)]
    results = {}
    for name in tools:
        out = os.path.join(work, name.lower() + ".gif")
        made = frames_of(out)
        if len(made) != FRAMES:
            sys.exit(f"{name} wrote {len(made)} frames, not {FRAMES}")
        psnr = np.mean([quality.psnr(a, b) for a, b in zip(made, references)])
        ssim = np.mean([quality.ssim(a, b) for a, b in zip(made, references)])
        results[name] = (min(r[0] for r in runs[name]), max(r[1] for r in runs[name]), os.path.getsize(out), psnr, ssim)
    base = results["libvips"]
    print(f"\nAnimated GIF: {FRAMES} frames of {WIDTH}x{HEIGHT} to {OUT_WIDTH}x{out_height} (best of {ROUNDS}; ratios against libvips)")
    print("| tool | time | × libvips | peak MiB | × libvips | bytes | × libvips | PSNR dB | SSIM |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (seconds, peak, size, psnr, ssim) in results.items():
        print(f"| {name} | {seconds:.3f} s | {seconds / base[0]:.2f} | {peak:.1f} | {peak / base[1]:.2f} | {size} | {size / base[2]:.2f} | {psnr:.2f} | {ssim:.4f} |")
    # The memory target is about what the frames add: the same run on the first two frames
    # (start-up, libraries, one canvas and its way through the stages) is the base.
    short = os.path.join(work, "short.gif")
    frames = [frame.convert("RGB") for _, frame in zip(range(2), ImageSequence.Iterator(Image.open(source)))]
    frames[0].save(short, save_all=True, append_images=frames[1:], duration=40, loop=0)
    _, base_peak = measure(tools["ImagePipe"].replace(source, short).format(out=os.path.join(work, "short-out.gif")))
    canvas = WIDTH * HEIGHT * 4 / 2**20
    output = results["ImagePipe"][2] / 2**20
    above = results["ImagePipe"][1] - base_peak
    print(f"ImagePipe's peak above the same run on 2 frames: {above:.1f} MiB; target 2 canvases ({2 * canvas:.2f} MiB) + the output ({output:.2f} MiB) = {2 * canvas + output:.2f} MiB")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
