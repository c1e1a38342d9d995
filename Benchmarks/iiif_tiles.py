#!/usr/bin/python3
"""IIIF tile requests of a gigapixel pyramid, for `make bench-iiif`: `imagepipe serve --iiif`
against IIPImage (Debian's iipimage-server, the IIIF server of museums and slide archives,
behind lighttpd's FastCGI with a process per core), the same requests to both, in one run.

The picture: Samples/images/boats.jpg repeated 19 × 17 times (24320×13600, 331 MP) written by
libvips as a tiled pyramidal TIFF, JPEG-compressed at quality 90 in 256-pixel tiles, the form
IIPImage documents. The requests: 400 tiles of 512×512 output at each of the scale factors 1
and 4 (regions of 512 and 2048 pixels on 512-pixel boundaries, chosen at random, the same list
for both servers), through IIIF Image API 2 (`/REGION/512,/0/default.jpg`), JPEG quality 80 on
both sides (IIPImage's JPEG_QUALITY; ImagePipe's default). Each server is loaded by wrk
(-t2 -c4, DURATION seconds) cycling over the list after a pass that warms the page cache, in
ROUNDS rounds that alternate the servers; the CPU time the server's processes spent is read
from /proc before and after, for the CPU a request takes. ImagePipe runs twice: in its default
scaling (a level with twice the output's size, resampled with Lanczos3) and with
`--scaling fast` (the level that covers the output, as IIPImage reads).

usage: iiif_tiles.py IMAGEPIPE
"""

import contextlib
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import serve  # noqa: E402

ROOT = os.path.join(HERE, "work", "iiif")
PICTURE = "pyramid.tif"
SIZE = (24320, 13600)
ROUNDS = int(os.environ.get("IIIF_BENCH_ROUNDS", 3))
serve.DURATION = int(os.environ.get("IIIF_BENCH_SECONDS", 10))
IIPSRV = "/usr/lib/iipimage-server/iipsrv.fcgi"


def prepare():
    path = os.path.join(ROOT, PICTURE)
    if os.path.exists(path):
        return
    os.makedirs(ROOT, exist_ok=True)
    source = os.path.join(HERE, "..", "Samples", "images", "boats.jpg")
    big = os.path.join(ROOT, "big.v")
    subprocess.run(["vips", "replicate", source, big, "19", "17"], check=True)
    subprocess.run(["vips", "tiffsave", big, path, "--tile", "--pyramid", "--compression", "jpeg", "-Q", "90",
                    "--tile-width", "256", "--tile-height", "256"], check=True)
    os.remove(big)


def tiles(prefix, scale, count=400, side=512):
    """`count` tile addresses at `scale`, on the tile grid, the same for a given scale."""
    chosen = random.Random(scale)
    width, height = SIZE
    region = side * scale
    paths = []
    for _ in range(count):
        x, y = chosen.randrange(0, width // region) * region, chosen.randrange(0, height // region) * region
        w, h = min(region, width - x), min(region, height - y)
        paths.append(f"{prefix}/{PICTURE}/{x},{y},{w},{h}/{(w + scale - 1) // scale},/0/default.jpg")
    return paths


@contextlib.contextmanager
def iipimage(work):
    """lighttpd on a free port handing /iiif/ to iipsrv over FastCGI, a process per core."""
    def command(port):
        conf = os.path.join(work, "lighttpd.conf")
        open(conf, "w").write(f'''server.document-root = "{ROOT}"
server.port = {port}
server.bind = "127.0.0.1"
server.modules = ("mod_fastcgi")
server.errorlog = "{work}/lighttpd.log"
fastcgi.server = ("/iiif" => (("bin-path" => "{IIPSRV}", "socket" => "{work}/iipsrv.sock", "max-procs" => {serve.CORES},
  "check-local" => "disable", "bin-environment" => ("URI_MAP" => "iiif=>IIIF", "FILESYSTEM_PREFIX" => "{ROOT}/",
  "JPEG_QUALITY" => "80", "VERBOSITY" => "0"))))
''')
        return ["lighttpd", "-D", "-f", conf]
    with serve.serving(command, health=f"/iiif/{PICTURE}/info.json") as running:
        yield running


def cpu_seconds(process_group):
    """The user and system CPU time of every process in `process_group`."""
    total = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                if int(fields[2]) == process_group:
                    total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    imagepipe = os.path.abspath(sys.argv[1])
    prepare()
    work = tempfile.mkdtemp(prefix="imagepipe-iiif-bench-")
    with contextlib.ExitStack() as running:
        servers = []
        for mode in ["good", "fast"]:
            port, process = running.enter_context(serve.serving(
                lambda p, mode=mode: [imagepipe, "serve", "--unsigned", "--iiif", "--root", ROOT, "--listen", f"127.0.0.1:{p}",
                                      "--workers", str(serve.CORES), "--max-pixels", "0", "--max-input-bytes", "0", "--scaling", mode]))
            servers.append((f"ImagePipe serve --iiif ({mode})", port, process, "/iiif/2"))
        if os.path.exists(IIPSRV):
            port, process = running.enter_context(iipimage(work))
            servers.append(("IIPImage 1.1 (iipsrv + lighttpd)", port, process, "/iiif"))
        else:
            print("(IIPImage is not installed: apt-get install iipimage-server lighttpd)")
        results = {(name, scale): [] for name, _, _, _ in servers for scale in (1, 4)}
        for _ in range(ROUNDS):
            for scale in (1, 4):
                for name, port, process, prefix in servers:
                    paths = tiles(prefix, scale)
                    before = cpu_seconds(os.getpgid(process.pid))
                    rate, p50, p99, errors = serve.load(port, paths, work, f"iiif{scale}")
                    spent = cpu_seconds(os.getpgid(process.pid)) - before
                    # The CPU time covers the warm-up pass too: one request per address more.
                    results[(name, scale)].append((rate, p50, 1000 * spent / (rate * serve.DURATION + len(paths)), errors))
    base = servers[-1][0]
    print(f"{ROUNDS} rounds, wrk -t2 -c4 {serve.DURATION} s a server a round, {serve.CORES} cores; {SIZE[0]}x{SIZE[1]} pyramid, 512x512 tiles")
    print("| server | scale factor | requests/s | × IIPImage (rounds) | CPU ms a request | p50 ms | errors |")
    print("|---|---|---|---|---|---|---|")
    for scale in (1, 4):
        for name, _, _, _ in servers:
            rows = results[(name, scale)]
            ratios = [rate / other[0] for (rate, *_), other in zip(rows, results[(base, scale)])]
            print(f"| {name} | {scale} | {np.median([r[0] for r in rows]):.1f} | {np.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) "
                  f"| {np.median([r[2] for r in rows]):.1f} | {np.median([r[1] for r in rows]):.1f} | {sum(len(r[3]) for r in rows)} |")


if __name__ == "__main__":
    main()
