#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost, everything under one directory, for the tests:
#   Tests/Cluster/slurm-cluster.sh start DIR   start munged, slurmctld and slurmd; wait until a job runs
#   Tests/Cluster/slurm-cluster.sh stop DIR    stop them (slurmd, slurmctld, munged, in that order)
# After start, clients need SLURM_CONF=DIR/slurm.conf (DIR/env has the line to source).
#
# Why it looks like this (each was a failure first): no systemd and cgroup v1 here, so process
# tracking is linuxproc and there is no cgroup plugin; a fresh state directory per cluster (a
# shared one makes the next slurmctld die with "CLUSTER NAME MISMATCH"); free ports, so two
# clusters or a system one do not collide; MinJobAge=4 so that `sbatch --wait` polls every 2 s
# instead of backing off to 42 s; batch_sched_delay=0 and a priming job, since the first
# scheduling pass comes ~3 s after slurmctld starts; jobcomp/filetxt keeps finished jobs' exit
# codes after they drop out of scontrol. Root submits, as in the tests.
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

alive() { # a PID that runs, not a zombie (kill -0 succeeds on zombies)
    [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

stop_pid() { # SIGTERM, then SIGKILL after $2 seconds
    local pid=$1 wait=$2 i
    alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < wait * 10; i++)); do alive "$pid" || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "$command" in
start)
    # The daemons outlive this script: they must not hold the caller's descriptors beyond 0–2
    # (a test runner's pipes, inherited without close-on-exec), or the caller waits for an end
    # of file that never comes.
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null || true
    done
    for program in munged mungekey slurmctld slurmd sbatch sinfo; do
        command -v "$program" >/dev/null || { echo "slurm-cluster: $program is not installed" >&2; exit 3; }
    done
    dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
    rm -rf "$dir/state" "$dir/spool" "$dir/munge"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
    chmod 0711 "$dir" "$dir/munge"
    mungekey -c -f -k "$dir/munge.key"
    chmod 0600 "$dir/munge.key"
    setsid munged --foreground --force --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge.key" \
        --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munge.seed" --log-file="$dir/log/munged.log" \
        </dev/null >"$dir/log/munged.out" 2>&1 &
    echo $! >"$dir/munged.pid"
    for ((i = 0; i < 100; i++)); do [ -S "$dir/munge/munge.socket.2" ] && break; sleep 0.05; done
    [ -S "$dir/munge/munge.socket.2" ] || { echo "slurm-cluster: munged did not start:" >&2; cat "$dir/log/munged.out" >&2; exit 1; }

    memory=$(awk '/^MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
    cat >"$dir/slurm.conf" <<CONF
ClusterName=imagepipe$$
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pidfile
SlurmdPidFile=$dir/slurmd.pidfile
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
MinJobAge=4
KillWait=10
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
ReturnToService=2
MpiDefault=none
NodeName=localhost CPUs=2 RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    echo "export SLURM_CONF='$dir/slurm.conf'" >"$dir/env"
    setsid slurmctld -D -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/slurmctld.pid"
    setsid slurmd -D -N localhost -f "$SLURM_CONF" </dev/null >"$dir/log/slurmd.out" 2>&1 &
    echo $! >"$dir/slurmd.pid"
    state=""
    for ((i = 0; i < 200; i++)); do
        state=$(sinfo -h -o %T 2>/dev/null || true)
        [ "$state" = idle ] && break
        sleep 0.1
    done
    if [ "$state" != idle ]; then
        echo "slurm-cluster: the node did not come up (state '$state'):" >&2
        tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
        exit 1
    fi
    # The first scheduling pass comes some seconds after slurmctld starts: wait for it here, once.
    timeout 60 sbatch --quiet --wait --output=/dev/null --wrap=true
    ;;
stop)
    # slurmd first: with slurmctld already gone it waits ~10 s for it before stopping.
    for daemon in slurmd slurmctld munged; do
        [ -f "$dir/$daemon.pid" ] && stop_pid "$(cat "$dir/$daemon.pid")" 15
        rm -f "$dir/$daemon.pid"
    done
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
