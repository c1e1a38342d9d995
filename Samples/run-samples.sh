#!/usr/bin/env bash
# Runs every sample pipeline in Samples/ on its bundled picture.
# Each .pipe file names its picture and its output in header comments:
#   # input: images/leaf.jpg
#   # output: avatar.png
# usage: Samples/run-samples.sh IMAGEPIPE OUTPUT_DIR
set -euo pipefail
binary=$1
out=$2
samples=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
failed=0
for pipeline in "$samples"/*.pipe; do
  input=$(sed -n 's/^# input: *//p' "$pipeline" | head -n 1)
  output=$(sed -n 's/^# output: *//p' "$pipeline" | head -n 1)
  if [ -z "$input" ] || [ -z "$output" ]; then
    echo "$pipeline: missing '# input:' or '# output:' header" >&2
    failed=1
    continue
  fi
  # A pipeline that names its own outputs (`save {stem}-avatar.png`, also inside a branch's
  # groups) gets no -o: the two would clash.
  naming=(-o "$output")
  grep -qE '^[[:space:]]*save [^ =]+( |$)' "$pipeline" && naming=()
  if "$binary" run "$pipeline" "$samples/$input" --out-dir "$out" "${naming[@]}"; then
    echo "$(basename "$pipeline") → $out/$output"
  else
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "The sample outputs are in $out/"
exit "$failed"
