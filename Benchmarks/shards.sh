#!/usr/bin/env bash
# Sharding's cost: 2,000 small real photos through the avatar pipeline (Samples/avatar.pipe),
# one process with --jobs 2 against 4 Slurm shards on the same 2 cores (2 tasks at a time,
# --jobs 1 each) and against 4 shards run by GNU parallel -j 2; then a shard's peak memory for
# a 10,000- and a 1,000,000-line list.
#   Benchmarks/shards.sh IMAGEPIPE [WORKDIR]       (make bench-shards builds in release and runs it)
# Needs root, slurmctld slurmd slurm-client munge parallel and GNU time (Debian `time`).
set -euo pipefail
imagepipe=$(realpath "$1")
repository=$(cd "$(dirname "$0")/.." && pwd)
work=$(mkdir -p "${2:-$repository/.build/bench-shards}" && cd "${2:-$repository/.build/bench-shards}" && pwd)
cd "$work"

# 2,000 distinct small JPEGs: 500 crops (480×360, each at its own offset) of each bundled photo.
if [ ! -f photos/photos.txt ] || [ "$(wc -l < photos/photos.txt)" != 2000 ]; then
    rm -rf photos && mkdir -p photos
    for photo in "$repository"/Samples/images/*.jpg; do
        name=$(basename "$photo" .jpg)
        read -r width height < <("$imagepipe" explain -e '' "$photo" | awk 'NR==1 { split($3, s, "x"); print s[1], s[2] }')
        mkdir -p "photos/$name"
        for i in $(seq 0 499); do
            x=$(( (i * 37) % (width - 480) )); y=$(( (i * 53) % (height - 360) ))
            printf '%s\n' "load $photo | crop $x,$y,480x360 | save photos/$name/$i.jpg"
        done > "photos/$name.jobs"
        # One pipeline per line: parallel keeps both cores busy while making them.
        parallel -j 2 "$imagepipe" run -q -e {} :::: "photos/$name.jobs" < /dev/null
        (cd photos && ls "$name" | sed "s|^|$name/|") >> photos/photos.txt.new
    done
    mv photos/photos.txt.new photos/photos.txt
fi
pipeline="$repository/Samples/avatar.pipe"
# Other builds share these cores, so wall time is noisy: every process is also timed for its CPU
# (user + system, GNU time), which is what sharding's own work — start-up, list reading, ledger
# writing — adds to.
cat > timed-imagepipe <<WRAPPER
#!/bin/sh
exec /usr/bin/time -a -o "\$CPU_LOG" -f "%e %U %S" "$imagepipe" "\$@"
WRAPPER
chmod +x timed-imagepipe
export CPU_LOG
now() { date +%s.%N; }
cpu() { awk '{ total += $2 + $3 } END { printf "%.2f", total }' "$1"; }
args=(--inputs-from photos/photos.txt -o '{dir}/{stem}.png' -q)

rm -rf one one.cpu && CPU_LOG=$work/one.cpu && start=$(now)
./timed-imagepipe run "$pipeline" "${args[@]}" --out-dir one --jobs 2
one=$(echo "$(now) - $start" | bc); one_cpu=$(cpu one.cpu)
echo "one process --jobs 2: wall $one s, CPU $one_cpu s"

rm -rf par par-ledger par.cpu && CPU_LOG=$work/par.cpu && start=$(now)
parallel --termseq TERM,30000,KILL,25 -j 2 ./timed-imagepipe run "$pipeline" "${args[@]}" --out-dir par \
    --ledger par-ledger --jobs 1 --shard {#}/4 ::: 1 2 3 4
par=$(echo "$(now) - $start" | bc); par_cpu=$(cpu par.cpu)
echo "GNU parallel, 4 shards, -j 2: wall $par s, CPU $par_cpu s"

"$repository/Tests/Cluster/slurm-cluster.sh" start cluster >/dev/null
trap '"$repository/Tests/Cluster/slurm-cluster.sh" stop "$work/cluster"' EXIT
rm -rf slurm slurm-ledger slurm.cpu && CPU_LOG=$work/slurm.cpu && start=$(now)
SLURM_CONF=$work/cluster/slurm.conf IMAGEPIPE=$work/timed-imagepipe PIPELINE=$pipeline INPUTS=photos/photos.txt OUT_DIR=slurm \
    LEDGER=slurm-ledger sbatch --wait --quiet --output=/dev/null "$repository/Samples/cluster/slurm-avatars.sbatch"
slurm=$(echo "$(now) - $start" | bc); slurm_cpu=$(cpu slurm.cpu)
echo "Slurm, 4 shards on 2 CPUs: wall $slurm s (from sbatch to its return), CPU $slurm_cpu s"
"$imagepipe" report slurm-ledger | head -n 1
diff -r one slurm >/dev/null && diff -r one par >/dev/null && echo "outputs: the same bytes in all three runs"
percent() { echo "($1 - $2) * 100 / $2" | bc -l | xargs printf '%+.1f %%'; }
echo "sharding's cost in CPU: GNU parallel $(percent "$par_cpu" "$one_cpu"), Slurm $(percent "$slurm_cpu" "$one_cpu"); in wall time: GNU parallel $(percent "$par" "$one"), Slurm $(percent "$slurm" "$one")"

# Peak memory of one shard (1 of 4) as the list grows: every line names a missing file, so the
# run is all list reading, shard selection, failing and ledger writing, and no decoding.
for lines in 10000 1000000; do
    seq 1 "$lines" | sed 's|$|.jpg|' > "missing-$lines.txt"
    rm -rf "memory-ledger-$lines"
    /usr/bin/time -f "%M %e" -o "memory-$lines.txt" "$imagepipe" run "$pipeline" --inputs-from "missing-$lines.txt" --shard 1/4 \
        --out-dir memory -o '{stem}.png' --ledger "memory-ledger-$lines" -q 2>/dev/null || true
    read -r kib elapsed < <(tail -n 1 "memory-$lines.txt") # GNU time first notes the exit status 1
    echo "list of $lines lines, shard 1 of 4: peak $((kib / 1024)) MiB, $elapsed s, $(grep -c '"index"' "memory-ledger-$lines/shard-1-of-4.jsonl") inputs recorded"
done

