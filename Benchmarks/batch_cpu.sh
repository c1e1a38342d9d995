#!/usr/bin/env bash
# CPU time of `imagepipe run` on the service benchmark's batch (50 photos, fit into 640x640, JPEG
# q80), for two or more builds in alternate rounds (3), each build's mean at the end: a steadier
# comparison than rates on a noisy machine. PHOTOS (file names in Benchmarks/work/photos/batch)
# picks a subset, such as the photos `good` decodes whole (2048 wide or less).
# usage: [PHOTOS="a.jpg b.jpg"] Benchmarks/batch_cpu.sh good|fast|best IMAGEPIPE...
set -euo pipefail
mode=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
batch=$here/work/photos/batch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=()
for name in ${PHOTOS:-$(ls "$batch")}; do inputs+=("$batch/$name"); done
declare -A total
for round in 1 2 3; do
    for binary in "$@"; do
        rm -rf "$work/out"
        /usr/bin/time -o "$work/time" -f "%U %S" "$binary" run --scaling "$mode" -e "fit 640x640 | save quality=80" "${inputs[@]}" \
            --out-dir "$work/out" >/dev/null 2>&1
        seconds=$(awk 'END { print $1 + $2 }' "$work/time")
        echo "round $round: $binary $seconds s"
        total[$binary]=$(awk -v a="${total[$binary]:-0}" -v b="$seconds" 'BEGIN { print a + b }')
    done
done
for binary in "$@"; do
    awk -v t="${total[$binary]}" -v n="${#inputs[@]}" -v b="$binary" 'BEGIN { printf "%s: %.3f s of CPU a batch, %.2f ms a picture\n", b, t / 3, 1000 * t / 3 / n }'
done
