#!/usr/bin/env bash
# `make sanitize`, second half: leaks under valgrind over a 50-picture batch, and peak memory
# over batches of 50 and 1000 pictures (it should stay flat). usage: memory-check.sh IMAGEPIPE
set -euo pipefail
imagepipe=$1
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

echo "== leaks: valgrind over a 50-picture batch (circle-crop, 2 jobs)"
valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --error-exitcode=3 \
  --log-file="$work/valgrind.log" "$imagepipe" run -e 'circle-crop size=128' "$work/fifty" --out-dir "$work/out50" -o '{stem}.png' -q --jobs 2
grep -E "definitely lost|indirectly lost|possibly lost|ERROR SUMMARY" "$work/valgrind.log" | sed 's/^==[0-9]*== //'

echo "== peak memory, 50 and 1000 pictures (fit 640x640 + circle-crop, 2 jobs)"
for dir in fifty in; do
  count=$(ls "$work/$dir" | wc -l)
  /usr/bin/time -f "$count pictures: %e s, peak %M KiB" "$imagepipe" run -e 'fit 640x640 | circle-crop size=128' "$work/$dir" \
    --out-dir "$work/out-$dir" -o '{stem}.png' -q --jobs 2
done
