#!/usr/bin/env bash
# `make sanitize`, second half: leaks over a 50-picture batch (LeakSanitizer, in an
# AddressSanitizer build: valgrind 3.19 cannot read the DWARF 5 this toolchain writes), and peak
# memory over batches of 50 and 1000 pictures (it should stay flat).
# usage: memory-check.sh IMAGEPIPE_RELEASE IMAGEPIPE_ADDRESS_SANITIZED
set -euo pipefail
imagepipe=$1
sanitized=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
samples=$(cd "$(dirname "$0")/../../Samples/images" && pwd)
mkdir -p "$work/in"
i=0
while [ $i -lt 1000 ]; do
  for photo in "$samples"/*.jpg; do
    [ $i -lt 1000 ] || break
    ln -s "$photo" "$work/in/$(printf %04d $i).jpg"
    i=$((i + 1))
  done
done
mkdir -p "$work/fifty"
for f in $(ls "$work/in" | head -n 50); do ln -s "$work/in/$f" "$work/fifty/$f"; done

echo "== leaks: LeakSanitizer over a 50-picture batch (circle-crop, 2 jobs)"
if ASAN_OPTIONS=detect_leaks=1 SWIFT_BACKTRACE=enable=no "$sanitized" run -e 'circle-crop size=128' "$work/fifty" \
    --out-dir "$work/out50" -o '{stem}.png' -q --jobs 2 2> "$work/leaks.log"; then
  echo "no leak, no memory error ($(ls "$work/out50" | wc -l) avatars written)"
else
  grep -E "SUMMARY|Direct leak|Indirect leak|ERROR" "$work/leaks.log" || cat "$work/leaks.log"
  exit 1
fi

echo "== leaks: LeakSanitizer over a streamed 50-picture batch (grayscale, JPEG to JPEG, 2 jobs)"
if ASAN_OPTIONS=detect_leaks=1 SWIFT_BACKTRACE=enable=no "$sanitized" run -e 'grayscale | modulate saturation=1.2' "$work/fifty" \
    --out-dir "$work/streamed50" -o '{stem}.jpg' -q --jobs 2 2> "$work/leaks.log"; then
  echo "no leak, no memory error ($(ls "$work/streamed50" | wc -l) pictures written)"
else
  grep -E "SUMMARY|Direct leak|Indirect leak|ERROR" "$work/leaks.log" || cat "$work/leaks.log"
  exit 1
fi

echo "== peak memory, 50 and 1000 pictures (fit 640x640 + circle-crop, 2 jobs)"
for dir in fifty in; do
  count=$(ls "$work/$dir" | wc -l)
  /usr/bin/time -f "$count pictures: %e s, peak %M KiB" "$imagepipe" run -e 'fit 640x640 | circle-crop size=128' "$work/$dir" \
    --out-dir "$work/out-$dir" -o '{stem}.png' -q --jobs 2
done
