#!/usr/bin/python3
"""`imagepipe serve` under load, for `make bench-serve`: requests per second and latency of
ImagePipe's service against thumbor on the same work and machine, in one run, with the same
pictures' quality beside them; and the service against `imagepipe run` doing the same work as a
batch.

The work is the issue's: the 50 batch photos of `make bench` (Benchmarks/bench.py makes them from
Debian's wallpapers), each fitted into 640x640 and written as JPEG quality 80.

  ImagePipe serve   imagepipe serve --unsigned --root BATCH (a worker per core), addresses
                    /_/<base64 of 'resize 640x640 fit=inside upscale=false | save quality=80'>/NAME@jpg,
                    in the default (good) scaling mode and with --scaling fast
  thumbor           thumbor 7 from PyPI (installed here into Benchmarks/work/thumbor),
                    its file loader on BATCH, a process per core each on its own port (the
                    load shared out evenly, as a balancer would), /unsafe/fit-in/640x640/NAME
                    with QUALITY = 80 (Pillow, JPEG draft decoding); twice, as installed
                    (progressive JPEGs, optimized) and with PROGRESSIVE_JPEG = False (baseline
                    JPEGs, optimized, as ImagePipe writes them)
  imagepipe run     the same pipeline over the 50 files as one batch (--jobs per core), for the
                    service's share of the batch's throughput

The same comparison runs on a second set held out from tuning (bench.prepare_held_out_photos:
50 other Debian wallpapers and photos, 2 to 24 MP, a third progressive, JPEGs of cjpeg's
qualities 75 to 92 at 4:2:0 and 4:4:4), so that a figure is not only the set's it was tuned on.
SERVE_SETS=tuned or SERVE_SETS=held-out runs one; SERVE_THROUGHPUT_ONLY=1 stops after the
throughput tables.

Each server is loaded by wrk (-t2 -c4, DURATION seconds) cycling over the 50 addresses after a
warm-up pass; wrk reports requests per second and the latency distribution. The servers run
side by side and take turns, in ROUNDS rounds (3 by default; the batch runs once a round too),
so that the machine's drift from minute to minute falls on all of them alike: each figure is
the median over the rounds, and each ratio the median of the rounds' own ratios, its range
beside it. Quality is the mean
PSNR over 10 photos of each server's response against the float Lanczos3 reference (quality.py),
beside the mean size of the 50 responses.

Then, for ImagePipe's service in the default mode: latency at 80 % of the peak wrk finds on the
same server just before, open loop (openloop.py: requests at a fixed rate, latency from each
one's scheduled time), in ROUNDS rounds of peak, open loop and peak again, p99 / p50 their
median; 10x the connections with wrk -c40, the server's resident memory sampled through it and
the answers counted by status; and a soak at 70 % of the rounds' median peak for
SERVE_SOAK_SECONDS (600 by default, 0 to leave it out) on a fresh server, its resident memory in
the minute after the first (the median of its samples, every 5 s) against the last minute's.

usage: serve.py IMAGEPIPE
"""
import base64
import contextlib
import glob
import http.client
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
import openloop  # noqa: E402
import quality  # noqa: E402

DURATION = int(os.environ.get("SERVE_BENCH_SECONDS", 20))
SOAK = int(os.environ.get("SERVE_SOAK_SECONDS", 600))
ROUNDS = int(os.environ.get("SERVE_BENCH_ROUNDS", 3))
# The photo sets whose throughput is compared: the batch the service was tuned on, and a set
# held out from tuning (bench.prepare_held_out_photos).
SETS = os.environ.get("SERVE_SETS", "tuned,held-out").split(",")
# Only the throughput tables: no open loop, overload, soak or crops.
THROUGHPUT_ONLY = os.environ.get("SERVE_THROUGHPUT_ONLY") == "1"
# thumbor as installed writes progressive JPEGs (PROGRESSIVE_JPEG is on by default), an encode
# about twice as costly as the baseline JPEGs ImagePipe writes: the second thumbor is told to
# write baseline ones, the same encoding work as ImagePipe's.
THUMBOR_DEFAULT = "thumbor 7 (Pillow)"
THUMBOR_BASELINE = "thumbor 7 (Pillow, PROGRESSIVE_JPEG = False)"
THUMBOR = os.path.join(HERE, "work", "thumbor")
PIPELINE = "resize 640x640 fit=inside upscale=false | save quality=80"
CORES = os.cpu_count() or 2


@contextlib.contextmanager
def serving(command, env=None, health="/health"):
    """The server `command(port)` starts on a free port, yielding the port (and the process) once
    `health` answers; stopped on the way out."""
    port = free_port()
    # The servers' logs go to a file: a pipe nobody reads would fill and stall them.
    log = tempfile.TemporaryFile(mode="w+")
    # A session of its own, so that the server's children (thumbor's processes) stop with it: left
    # running, they took a share of the cores from every later run.
    process = subprocess.Popen(command(port), stdout=subprocess.DEVNULL, stderr=log, env=env, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not answers(port, health):
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                sys.exit(f"failed to start: {command(port)}\n{log.read()[-4000:]}")
            time.sleep(0.2)
        yield port, process
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def imagepipe_serve(imagepipe, batch, *options):
    return serving(lambda port: [imagepipe, "serve", "--unsigned", "--root", batch, "--listen", f"127.0.0.1:{port}",
                                 "--workers", str(CORES), *options])


@contextlib.contextmanager
def thumbor_serve(batch, work, quality=None, progressive=True):
    """thumbor with its file loader on `batch`: a process per core, each on a port of its own,
    yielding the ports. thumbor's own `--processes N` shares one listening socket, and the
    process that wakes first accepts every connection wrk opens at once: the load then fell
    on one process in three runs of four (55 requests a second against 104 when it was shared),
    so each process gets its own port and its own share of the connections (`load`), as a
    balancer in front of thumbor would give it."""
    conf = os.path.join(work, f"thumbor-{quality}-{progressive}.conf")
    open(conf, "w").write(f"LOADER = 'thumbor.loaders.file_loader'\nFILE_LOADER_ROOT_PATH = {batch!r}\nALLOW_UNSAFE_URL = True\n"
                          "RESULT_STORAGE = None\nSTORAGE = 'thumbor.storages.no_storage'\n"
                          + (f"QUALITY = {quality}\n" if quality else "") + ("" if progressive else "PROGRESSIVE_JPEG = False\n"))
    with contextlib.ExitStack() as servers:
        ports = [servers.enter_context(serving(lambda port: [sys.executable, "-c", "import sys; from thumbor.server import main; main(sys.argv[1:])",
                                                             "--port", str(port), "--conf", conf, "--processes", "1"],
                                               env=dict(os.environ, PYTHONPATH=THUMBOR), health="/healthcheck"))[0]
                 for _ in range(CORES)]
        yield ports, None


def wrk_script(paths, work, name, done=""):
    """A wrk script asking `paths` in turn (and `done`, Lua run at the end)."""
    script = os.path.join(work, f"{name}.lua")
    listed = ", ".join('"' + path + '"' for path in paths)
    open(script, "w").write(f"local paths = {{{listed}}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n"
                            f"  return wrk.format(\"GET\", paths[i])\nend\n{done}")
    return script


def answers(port, path):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        return response.status == 200 and body or None
    except OSError:
        return None


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load(ports, paths, work, name):
    """wrk's requests per second and latencies (ms) cycling over `paths`: 2 threads and 4
    connections on one port, or shared out over several ports (a wrk on each at once, the rates
    added, the medians averaged and the highest 99th percentile taken)."""
    ports = ports if isinstance(ports, list) else [ports]
    script = wrk_script(paths, work, name)
    for path in paths:  # warm-up: every picture once, so the page cache is warm for all
        answers(ports[0], path)
    threads = max(1, 2 // len(ports))
    runs = [subprocess.Popen(["wrk", f"-t{threads}", f"-c{max(threads, 4 // len(ports))}", f"-d{DURATION}s", "--latency", "-s", script,
                              f"http://127.0.0.1:{port}"], stdout=subprocess.PIPE, text=True) for port in ports]
    outputs = [run.communicate()[0] for run in runs]
    def after(run, label):
        line = next(line for line in run.splitlines() if line.strip().startswith(label))
        return line.split()[1]
    def millis(text):
        for unit, factor in [("us", 0.001), ("ms", 1), ("s", 1000)]:
            if text.endswith(unit):
                return float(text[: -len(unit)]) * factor
        return float(text)
    errors = [line.strip() for run in outputs for line in run.splitlines() if "Non-2xx" in line or "Socket errors" in line]
    return (sum(float(after(run, "Requests/sec:")) for run in outputs), float(np.mean([millis(after(run, "50%")) for run in outputs])),
            max(millis(after(run, "99%")) for run in outputs), errors)


def mean_bytes(port, paths):
    """The mean size of the responses to `paths`."""
    return float(np.mean([len(answers(port, path)) for path in paths]))


def mean_psnr(port, paths, names, batch):
    values = []
    for path, name in zip(paths[:10], names[:10]):
        body = answers(port, path)
        output = os.path.join(tempfile.gettempdir(), "serve-bench-output.jpg")
        open(output, "wb").write(body)
        got = quality.load_output(output)
        reference = quality.reference(os.path.join(batch, name), got.shape[1], got.shape[0])
        values.append(quality.psnr(got, reference))
    return float(np.mean(values))


def throughput(imagepipe, batch, work):
    """Each server's requests per second on the pictures in `batch`, round after round with the
    batch run (`imagepipe run`) between them, and its responses' quality and size: the table's
    rows and the batch's rates."""
    names = sorted(os.path.basename(path) for path in glob.glob(os.path.join(batch, "*.jpg")))
    encoded = base64.urlsafe_b64encode(PIPELINE.encode()).rstrip(b"=").decode()
    paths = [f"/_/{encoded}/{name}@jpg" for name in names]
    thumbor_paths = [f"/unsafe/fit-in/640x640/{name}" for name in names]
    rows = []
    with contextlib.ExitStack() as running:
        servers = []  # name, ports, paths
        for mode in ["good", "fast"]:
            port, _ = running.enter_context(imagepipe_serve(imagepipe, batch, "--scaling", mode))
            servers.append((f"ImagePipe serve ({mode})", port, paths))
        if os.path.isdir(THUMBOR):
            ports, _ = running.enter_context(thumbor_serve(batch, work, quality=80))
            servers.append((THUMBOR_DEFAULT, ports, thumbor_paths))
            ports, _ = running.enter_context(thumbor_serve(batch, work, quality=80, progressive=False))
            servers.append((THUMBOR_BASELINE, ports, thumbor_paths))
        else:
            print(f"(thumbor is not installed: python3 -m pip install --target {THUMBOR} thumbor)")
        # Round after round, the batch (the same work through `imagepipe run`) and then each
        # server in turn.
        batch_rates, loads = [], {name: [] for name, _, _ in servers}
        for _ in range(ROUNDS):
            out = os.path.join(work, "batch-out")
            shutil.rmtree(out, ignore_errors=True)
            started = time.perf_counter()
            subprocess.run([imagepipe, "run", "-q", "-e", PIPELINE, *[os.path.join(batch, name) for name in names], "--out-dir", out,
                            "-o", "{stem}.jpg", "--jobs", str(CORES)], check=True)
            batch_rates.append(len(names) / (time.perf_counter() - started))
            for name, ports, server_paths in servers:
                loads[name].append(load(ports, server_paths, work, name.split()[0].lower()))
        bases = [[rate for rate, _, _, _ in loads.get(base, [])] for base in (THUMBOR_DEFAULT, THUMBOR_BASELINE)]
        for name, ports, server_paths in servers:
            rates = [rate for rate, _, _, _ in loads[name]]
            versus = [[rate / base for rate, base in zip(rates, base_rates)] for base_rates in bases]
            port = ports if isinstance(ports, int) else ports[0]
            rows.append((name, float(np.median(rates)), versus, [rate / done for rate, done in zip(rates, batch_rates)],
                         float(np.median([p50 for _, p50, _, _ in loads[name]])), float(np.median([p99 for _, _, p99, _ in loads[name]])),
                         mean_psnr(port, server_paths, names, batch), mean_bytes(port, server_paths),
                         sorted({error for _, _, _, errors in loads[name] for error in errors})))
    return rows, batch_rates


def print_throughput(title, rows, batch_rates):
    print(f"{title}: fitted into 640x640, JPEG q80; wrk -t2 -c4 for {DURATION} s a server a round, {ROUNDS} rounds; {CORES} cores.")
    print(f"imagepipe run as a batch: {np.median(batch_rates):.1f} pictures/s (median of {', '.join(f'{rate:.1f}' for rate in batch_rates)}).\n")
    print("| server | requests/s | × thumbor (rounds) | × thumbor, baseline JPEG (rounds) | × batch (rounds) | p50 ms | p99 ms | "
          "p99 / p50 | PSNR dB | KiB a response | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    def spread(ratios):
        return f"{np.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})" if ratios else "—"
    for name, rate, (versus, versus_baseline), of_batch, p50, p99, psnr, size, errors in rows:
        print(f"| {name} | {rate:.1f} | {spread(versus)} | {spread(versus_baseline)} | {spread(of_batch)} | {p50:.1f} | {p99:.1f} | "
              f"{p99 / p50:.2f} | {psnr:.2f} | {size / 1024:.1f} | {'; '.join(errors) or 'none'} |")
    print()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    imagepipe = os.path.abspath(sys.argv[1])
    bench.prepare_photos()  # first, since it starts Benchmarks/work afresh
    bench.prepare_held_out_photos()
    if not os.path.isdir(THUMBOR):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", THUMBOR, "thumbor"])
    batch = os.path.join(bench.PHOTOS, "batch")
    names = sorted(os.path.basename(path) for path in glob.glob(os.path.join(batch, "*.jpg")))
    encoded = base64.urlsafe_b64encode(PIPELINE.encode()).rstrip(b"=").decode()
    paths = [f"/_/{encoded}/{name}@jpg" for name in names]
    work = tempfile.mkdtemp(prefix="imagepipe-serve-bench-")
    try:
        sets = {"tuned": ("The 50 batch photos (the set the service was tuned on)", batch),
                "held-out": ("The 50 held-out pictures (2–24 MP, a third progressive)", bench.HELD_OUT)}
        for name in SETS:
            title, folder = sets[name]
            print_throughput(title, *throughput(imagepipe, folder, work))
        if THROUGHPUT_ONLY:
            return

        # 80 % of the peak of the minute it runs in: the peak measured again on this server just
        # before (80 % of a peak from a faster minute is nearly all a slower minute has).
        # In ROUNDS rounds, as the throughput: one 20-second run on two cores shared with the
        # load's generator misses now and then on a minute's noise alone. The peak measured again
        # after each round tells a slower minute (the rate asked then more than 80 % of what the
        # machine had) from the server's own queueing.
        with imagepipe_serve(imagepipe, batch) as (port, server):
            steady = []  # (peak before, open-loop result, peak after) a round
            for _ in range(ROUNDS):
                peak = load(port, paths, work, "imagepipe")[0]
                result = openloop.run(port, paths, 0.8 * peak, DURATION)
                steady.append((peak, result, load(port, paths, work, "imagepipe")[0]))
            overload = overloaded(server.pid, port, paths, work)
        peak = float(np.median([peak for peak, _, _ in steady]))
        soak = None
        if SOAK > 0:
            with imagepipe_serve(imagepipe, batch) as (port, server):
                with openloop.MemorySampler(server.pid, every=5) as memory:
                    result = openloop.run(port, paths, 0.7 * peak, SOAK)
                soak = (result, memory)

        crop_rows = attention_crops(imagepipe, batch, names, work)
        if steady:
            print(f"\nOpen loop at 80 % of the default mode's peak measured just before it, {DURATION} s, {ROUNDS} rounds:\n")
            print("| peak before | asked requests/s | answered requests/s | p50 ms | p99 ms | p99 / p50 | statuses | failed connections | peak after |")
            print("|---|---|---|---|---|---|---|---|---|")
            for before, result, after in steady:
                print(f"| {before:.1f} {row(result)} {after:.1f} |")
            ratios = [result.percentile(0.99) / result.percentile(0.5) for _, result, _ in steady]
            print(f"\np99 / p50, the median of the rounds: {np.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}).")
        if overload:
            print(f"\nAt 10x the connections (wrk -c40, {DURATION} s; the queue holds {4 * CORES}): {overload}")
        if soak:
            result, memory = soak
            warm = min(60, SOAK / 10)
            # Medians of a minute: the service gives its free pages back every 10 s, and single
            # samples swing with where in that cycle they fall.
            first, last = memory.median(warm, warm + 60), memory.median(-60, 0)
            highest = max(value for _, value in memory.samples)
            lowest = min(value for moment, value in memory.samples if moment - memory.samples[0][0] >= warm)
            print(f"\nSoak: open loop at 70 % of the median peak ({peak:.1f} requests/s) for {SOAK} s on a fresh server, its resident memory sampled every 5 s:\n")
            print("| asked requests/s | answered requests/s | p50 ms | p99 ms | p99 / p50 | statuses | failed connections |")
            print("|---|---|---|---|---|---|---|")
            print(row(result))
            print(f"\nResident memory, the median of a minute's samples: {first:.1f} MiB in the minute after the first {warm:.0f} s, "
                  f"{last:.1f} MiB in the last ({100 * (last - first) / first:+.1f} %); single samples after {warm:.0f} s "
                  f"{lowest:.1f} to {highest:.1f} MiB.")
        if crop_rows:
            print("\n800x800 around what matters, as WebP (thumbor's smart crop needs OpenCV, not installed: its plain center crop):\n")
            print("| server | requests/s | × thumbor | p50 ms | p99 ms |")
            print("|---|---|---|---|---|")
            crop_base = next((row[1] for row in crop_rows if row[0].startswith("thumbor")), None)
            for name, rate, p50, p99 in crop_rows:
                print(f"| {name} | {rate:.1f} | {f'{rate / crop_base:.2f}' if crop_base else '—'} | {p50:.1f} | {p99:.1f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def row(result):
    """A table row of an open-loop run."""
    p50, p99 = result.percentile(0.5), result.percentile(0.99)
    statuses = ", ".join(f"{count} × {status}" for status, count in sorted(result.statuses.items()))
    return (f"| {result.asked_rate:.1f} | {result.achieved_rate:.1f} | {p50:.1f} | {p99:.1f} | {p99 / p50:.2f} | {statuses} | "
            f"{result.errors} |")


def overloaded(pid, port, paths, work):
    """10x the connections: what came back, and the server's resident memory through it."""
    script = wrk_script(paths, work, "overload",
                        done="done = function(summary, latency, requests)\n  io.write(string.format(\"total %d\\n\", summary.requests))\nend\n")
    with openloop.MemorySampler(pid, every=0.5) as memory:
        run = subprocess.run(["wrk", "-t2", "-c40", f"-d{DURATION}s", "-s", script, f"http://127.0.0.1:{port}"],
                             capture_output=True, text=True, check=True).stdout
    before, after = memory.samples[0][1], memory.samples[-1][1]
    highest = max(value for _, value in memory.samples)
    total = int(next(line.split()[1] for line in run.splitlines() if line.startswith("total ")))
    non2xx = next((int(line.split()[-1]) for line in run.splitlines() if "Non-2xx" in line), 0)
    socket_errors = next((line.strip() for line in run.splitlines() if "Socket errors" in line), "no socket errors")
    # Every non-2xx answer is counted by the server's metrics: they must all be 503s.
    metrics = answers(port, "/metrics").decode()
    codes = {line.split('"')[1]: int(float(line.split()[-1])) for line in metrics.splitlines() if line.startswith("imagepipe_requests_total{")}
    other = {code: count for code, count in codes.items() if code not in ("200", "503")}
    return (f"{total} requests, {non2xx} answered 503 and none otherwise refused ({other or 'no other codes'}), {socket_errors}; "
            f"resident memory {before:.0f} MiB before, {highest:.0f} MiB at most, {after:.0f} MiB after")


def attention_crops(imagepipe, batch, names, work):
    """Requests per second of an 800x800 attention crop to WebP, and thumbor's plain crop."""
    rows = []
    text = "resize 800x800 fit=cover position=attention"
    encoded = base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()
    with imagepipe_serve(imagepipe, batch) as (port, _):
        rate, p50, p99, _ = load(port, [f"/_/{encoded}/{name}@webp" for name in names], work, "crop-imagepipe")
        rows.append(("ImagePipe serve (attention)", rate, p50, p99))
    if os.path.isdir(THUMBOR):
        with thumbor_serve(batch, work) as (ports, _):
            rate, p50, p99, _ = load(ports, [f"/unsafe/800x800/filters:format(webp)/{name}" for name in names], work, "crop-thumbor")
            rows.append(("thumbor 7 (center crop)", rate, p50, p99))
    return rows


if __name__ == "__main__":
    main()
