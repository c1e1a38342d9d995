#!/usr/bin/env bash
# CPU time per request of `imagepipe serve` under load: the server on the batch photos (a worker
# per core), 3 s of wrk to warm it, then `perf stat -e task-clock` on the server through
# `wrk -t2 -c4 -d10s` cycling over the 50 addresses of Benchmarks/serve.py (fit into 640x640,
# JPEG q80). CPU per request is steadier than requests per second on a noisy machine: run two
# builds in alternate rounds to compare them.
# usage: Benchmarks/serve_cpu.sh IMAGEPIPE PORT [good|fast]
set -euo pipefail
binary=$1 port=$2 mode=${3:-good}
here=$(cd "$(dirname "$0")" && pwd)
batch=$here/work/photos/batch
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
encoded=$(printf '%s' "fit 640x640 | save quality=80" | base64 -w0 | tr '+/' '-_' | tr -d '=')
paths=$(ls "$batch" | sed "s|.*|\"/_/$encoded/&@jpg\"|" | paste -sd,)
printf 'local paths = {%s}\nlocal i = 0\nrequest = function()\n  i = i %% #paths + 1\n  return wrk.format("GET", paths[i])\nend\n' "$paths" > "$work/cycle.lua"
"$binary" serve --unsigned --root "$batch" --listen "127.0.0.1:$port" --workers "$(nproc)" --scaling "$mode" 2>/dev/null &
server=$!
sleep 1.5
wrk -t2 -c4 -d3s -s "$work/cycle.lua" "http://127.0.0.1:$port" >/dev/null
perf stat -e task-clock,context-switches,page-faults -p "$server" -o "$work/stat" -- sleep 10 &
stat=$!
requests=$(wrk -t2 -c4 -d10s -s "$work/cycle.lua" "http://127.0.0.1:$port" | awk '/requests in/ { print $1 }')
wait "$stat"
milliseconds=$(awk '/task-clock/ { gsub(",", "", $1); print $1 }' "$work/stat")
echo "$mode: $requests requests, $milliseconds ms of CPU, $(awk -v m="$milliseconds" -v r="$requests" 'BEGIN { printf "%.2f", m / r }') ms a request"
echo "  resident memory after: $(($(ps -o rss= -p "$server") / 1024)) MiB"
awk -v r="$requests" '/context-switches|page-faults/ { gsub(",", "", $1); printf "  %s per request: %.1f\n", $2, $1 / r }' "$work/stat"
