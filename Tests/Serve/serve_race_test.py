#!/usr/bin/python3
"""`imagepipe serve` built with ThreadSanitizer (`make sanitize`) under a little load from
every side at once: pictures from both workers in every output format, requests refused and
failing, /health and /metrics read while they run, a full queue, then the drain on SIGTERM.
The checks here are only that the server answers and exits 0; the point is its standard error,
where ThreadSanitizer writes any data race it sees, and which must hold none.

usage: serve_race_test.py IMAGEPIPE WORK_DIR
"""
import http.client
import os
import signal
import subprocess
import sys
import threading
import time

binary, work = sys.argv[1], sys.argv[2]
root = os.path.join(work, "root")
os.makedirs(root, exist_ok=True)
subprocess.run([binary, "run", "-q", "-e", "extend right=500 bottom=300 mode=mirror", os.path.join(os.path.dirname(__file__), "../../Samples/images/leaf.jpg"),
                "-o", os.path.join(root, "in.jpg")], check=True)
with open(os.path.join(root, "broken.jpg"), "wb") as broken:
    broken.write(open(os.path.join(root, "in.jpg"), "rb").read()[:3000])


def url(pipeline, source="in.jpg", extension=""):
    made = subprocess.run([binary, "url", "--unsigned", pipeline, source] + (["--format", extension] if extension else []),
                          check=True, capture_output=True, text=True)
    return made.stdout.strip()


errors = open(os.path.join(work, "server.err"), "w+")
server = subprocess.Popen([binary, "serve", "--unsigned", "--root", root, "--listen", "127.0.0.1:0", "--workers", "2", "--queue", "3",
                           "--timeout", "600"], stderr=errors, stdout=subprocess.DEVNULL)
port = None
for _ in range(600):
    errors.seek(0)
    for line in errors.read().splitlines():
        if "listening on http://127.0.0.1:" in line:
            port = int(line.split("listening on http://127.0.0.1:")[1].split("/")[0])
    if port:
        break
    time.sleep(0.1)
assert port, "the server did not say where it listens"

paths = [url("fit 200x200"), url("blur 2 | fit 150x150", extension="webp"), url("sharpen | resize 50%", extension="png"),
         url("normalize | fit 120x120"), url("rotate angle=20 | fit 100x100", extension="avif"), url("fit 64x64", "broken.jpg"),
         url("fit 64x64", "missing.jpg"), "/_/bm9uc2Vuc2UgMw/in.jpg", "/health", "/metrics"]
statuses = []


def client(offset):
    for i in range(6):
        path = paths[(offset + i) % len(paths)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        try:
            connection.request("GET", path)
            statuses.append(connection.getresponse().status)
        except OSError as error:
            statuses.append(str(error))
        finally:
            connection.close()


threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
for thread in threads:
    thread.start()
time.sleep(1)
in_flight = threading.Thread(target=client, args=(0,))
in_flight.start()
for thread in threads:
    thread.join()
server.send_signal(signal.SIGTERM)
in_flight.join()
status = server.wait(timeout=600)
errors.seek(0)
log = errors.read()
races = log.count("WARNING: ThreadSanitizer")
print(f"{len(statuses)} answers: {sorted(set(map(str, statuses)))}; exit {status}; {races} ThreadSanitizer report(s)")
if races or status != 0 or 200 not in statuses:
    print(log[-20000:])
    sys.exit(1)
print("0 failure(s)")
