"""`resize` against Pillow on the bundled photos: both outputs scored against the float Lanczos3
reference of quality.py (PSNR, SSIM), and against each other (largest and mean difference).

usage: python3 Benchmarks/resize_vs_pillow.py IMAGEPIPE

Tasks, on every photo in Samples/images:
  fill   resize 320x200 fit=fill           Pillow: im.resize((320, 200), LANCZOS)
  cover  resize 300x300 (fit=cover)        Pillow: ImageOps.fit(im, (300, 300), LANCZOS)
The reference for cover is the exact centred window (quality.cover_window); Pillow's
ImageOps.fit rounds its crop to whole pixels before scaling, ImagePipe scales the exact window.
ImagePipe runs with --scaling best (full decode, Lanczos3) and with the default good (JPEG
shrink-on-load with 2x headroom). Needs Pillow and numpy (make bench installs them).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(__file__))
import quality  # noqa: E402

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "Samples", "images")
TASKS = [
    ("fill", "resize 320x200 fit=fill", (320, 200),
     lambda im: im.resize((320, 200), Image.LANCZOS), lambda w, h: None),
    ("cover", "resize 300x300 fit=cover", (300, 300),
     lambda im: ImageOps.fit(im, (300, 300), Image.LANCZOS), lambda w, h: quality.cover_window(w, h, 300, 300)),
]


def main(argv):
    binary = argv[1]
    print(f"{'photo':<20} {'task':<6} {'tool':<16} {'PSNR dB':>8} {'SSIM':>7} {'vs Pillow max':>14} {'mean':>6}")
    with tempfile.TemporaryDirectory() as out:
        for name in sorted(os.listdir(SAMPLES)):
            path = os.path.join(SAMPLES, name)
            decoded = quality.decode(path)
            height, width = decoded.shape[:2]
            source = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
            for task, text, (out_w, out_h), pillow, window in TASKS:
                ref = quality.reference(path, out_w, out_h, window=window(width, height), decoded=decoded)
                pil = np.asarray(pillow(source), dtype=np.float64)
                rows = [("Pillow LANCZOS", pil)]
                for scaling in ["best", "good"]:
                    target = os.path.join(out, f"{task}-{scaling}-{name}.png")
                    subprocess.run([binary, "run", "-e", text, path, "-o", target, "--scaling", scaling], check=True)
                    rows.append((f"imagepipe {scaling}", quality.load_output(target)))
                for tool, array in rows:
                    difference = np.abs(array - pil)
                    print(f"{name:<20} {task:<6} {tool:<16} {quality.psnr(array, ref):8.2f} {quality.ssim(array, ref):7.4f} "
                          f"{difference.max():14.0f} {difference.mean():6.2f}")


if __name__ == "__main__":
    main(sys.argv)
