#!/usr/bin/env bash
# slurm-cluster.sh start DIR [GPUS [CPUS]] | stop DIR: a Slurm cluster of one node,
# this machine, for make check-grade-slurm: munged, slurmctld and slurmd
# from Debian's packages (make deps-slurm), each started here as a process
# of its own with its files under DIR, and stopped by the process ids it
# wrote there. Nothing of the system's own Slurm or munge setup is used or
# touched, so it runs beside them on ports of its own.
#
# start prints the line to source, `export SLURM_CONF=DIR/slurm.conf`, once
# the node takes jobs; partitions "cpu" (the default) and "gpu" hold the
# node. GPUS=N (the H100 machine: 1) declares N GPUs as a generic resource
# (gres/gpu, /dev/nvidia0...) on it, so --gres=gpu:1 jobs run there; on a
# machine without /dev/nvidia0, empty files in DIR stand for the devices,
# so that the jobs of a grading's GPU tier are scheduled as on a cluster.
# CPUS=N gives the node N CPUs to schedule, more than it has if need be
# (default: as many as it has): a test whose jobs mostly wait runs more.
set -u
what=${1:-} dir=${2:-}
if [ -z "$what" ] || [ -z "$dir" ]; then echo "usage: slurm-cluster.sh start DIR [GPUS [CPUS]] | stop DIR" >&2; exit 2; fi
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1

stop() {
    local name pid status=0
    for name in slurmd slurmctld munged; do
        pid=$(cat "$dir/$name.pid" 2> /dev/null) || continue
        kill "$pid" 2> /dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done
        if kill -0 "$pid" 2> /dev/null; then
            kill -9 "$pid" 2> /dev/null
            echo "slurm-cluster: $name ($pid) did not stop in 10 s: killed" >&2
            status=1
        fi
        rm -f "$dir/$name.pid"
    done
    return $status
}

if [ "$what" = stop ]; then
    stop
    exit
fi
[ "$what" = start ] || { echo "slurm-cluster: start or stop, not $what" >&2; exit 2; }
gpus=${3:-0}
for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" > /dev/null || PATH=$PATH:/usr/sbin
    command -v "$tool" > /dev/null ||
        { echo "slurm-cluster: $tool is missing: make deps-slurm installs Slurm and munge" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-cluster: slurmd must run as root (it starts jobs as their users)" >&2; exit 1; }
stop 2> /dev/null # what an earlier start left
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" || exit 1

# munge: a key of our own, its socket in DIR; munged wants its files owned
# by the user it runs as, none of them writable by others
dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none && chmod 400 "$dir/munge/key"
chmod 700 "$dir/munge"
munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" ||
    { echo "slurm-cluster: munged did not start: $(tail -n 3 "$dir/log/munged.log" 2> /dev/null)" >&2; exit 1; }

# Ports of our own: a base picked from DIR's name, so two clusters in two
# folders (and a site's own on 6817/6818) do not meet.
base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))
host=$(hostname -s)
cpus=${4:-$(nproc)}
memory=$(awk '/^MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
gres="" gres_types=""
if [ "$gpus" -gt 0 ]; then
    gres=" Gres=gpu:$gpus" gres_types="GresTypes=gpu"
    if [ -e /dev/nvidia0 ]; then
        for k in $(seq 0 $((gpus - 1))); do echo "NodeName=$host Name=gpu File=/dev/nvidia$k"; done
    else # no GPU here (the CI's test of two tiers): files that stand for them, for
        # Slurm drops a GPU without one; it schedules by them, and opens none
        for k in $(seq 0 $((gpus - 1))); do
            : > "$dir/no-gpu$k" && echo "NodeName=$host Name=gpu File=$dir/no-gpu$k"
        done
    fi > "$dir/gres.conf"
fi
cat > "$dir/slurm.conf" << EOF
# A one-node cluster for the workbook's tests (tests/grade/slurm-cluster.sh).
ClusterName=workbook
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
MessageTimeout=30
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$gres_types
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory$gres State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
EOF
# Under cgroup v2, slurmd asks systemd (over D-Bus) for a cgroup of its
# own; a machine without systemd (a container, a VM's bare init) has none
# to ask, and no system.slice, which slurmd then makes its cgroup in
echo "IgnoreSystemd=yes" > "$dir/cgroup.conf"
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ ! -d /sys/fs/cgroup/system.slice ]; then
    mkdir /sys/fs/cgroup/system.slice || echo "slurm-cluster: no cgroup for slurmd (/sys/fs/cgroup/system.slice)" >&2
fi
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$dir/slurm.conf" -i ||
    { echo "slurm-cluster: slurmctld did not start: $(tail -n 3 "$dir/log/slurmctld.log")" >&2; stop; exit 1; }
slurmd -f "$dir/slurm.conf" ||
    { echo "slurm-cluster: slurmd did not start: $(tail -n 3 "$dir/log/slurmd.log")" >&2; stop; exit 1; }
for _ in $(seq 60); do
    state=$(sinfo -h -n "$host" -o %t 2> /dev/null | head -n 1)
    case $state in idle* | mix* | alloc*) echo "export SLURM_CONF=$dir/slurm.conf"; exit 0 ;; esac
    sleep 0.5
done
echo "slurm-cluster: the node did not come up in 30 s (state: ${state:-none}); see $dir/log" >&2
stop
exit 1
