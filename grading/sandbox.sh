#!/usr/bin/env bash
# sandbox.sh WORK SECONDS HIDE... -- COMMAND...: run COMMAND, untrusted, in a
# copy of WORK (a folder) seen inside as /tmp/sandbox, its working
# directory. When it ends, what the copy then holds at each of the paths
# SANDBOX_KEEP names (relative to WORK, split at spaces) replaces what WORK
# holds there; without SANDBOX_KEEP, the whole copy replaces WORK's contents.
# What comes back is the grader's. HIDE: absolute paths of folders it must
# not read (the grader's checkout, the submissions, the grades).
#
# In every mode COMMAND has no terminal (a session of its own, stdin
# /dev/null, a terminal on stdout or stderr reached through a pipe), no
# fd of the grader's but 0 to 2, and none of its environment but PATH, the
# compilers' search paths and CUDA_VISIBLE_DEVICES (HOME, TMPDIR: /tmp); it runs at most SANDBOX_PROCS processes
# (default 256) and writes files of SANDBOX_FILE_MB at most (default 256);
# after SECONDS it is stopped (exit 124), saying "sandbox: stopped: ..." on
# stderr. An interrupt (INT, TERM, HUP) ends all it started, then
# sandbox.sh.
#
# Memory (exit 125 past SANDBOX_MEM_MB, default 2048) counts anonymous and
# shared memory: memfds, SysV segments, and files in its tmpfs folders, its
# copy of WORK among them; read five times a second. As root, where it can
# make one, a memory cgroup of its own counts it, and its hard limit, twice
# that, bounds a burst between two readings. Without one, with user
# namespaces, /proc is summed: a memfd that no fd holds counts by its pages
# mapped alone, and a burst has no bound; in the fallback, no limit.
#
# With user namespaces (util-linux's unshare and setpriv), the supervisor
# (grading/supervise.sh), PID 1 of the command's own mount, PID, network,
# IPC and UTS namespaces, runs COMMAND chrooted, without capabilities. It
# reads every file system read-only, less the HIDE folders, /run and
# /var/run (sockets) and the host's /dev (it has null, zero, full, random,
# urandom, tty, shm, and /dev/nvidia* for the GPU). It writes its copy of
# WORK (a tmpfs of SANDBOX_DISK_MB, default 1024: a full one fails writes),
# a fresh /tmp and /dev/shm, nothing else. It reaches no network, no
# process outside, and no socket but one elsewhere whose file its user may
# write. Its user: as root, a user of its own (200000 + this PID) outside,
# root inside, so it reads what any user may; as another user, that user.
# A HIDE folder it would still see stops it before it starts (exit 126).
#
# Without them (refused here, or SANDBOX=none) it says so on stderr and runs
# COMMAND in WORK itself, with the host's files, sockets and network:
# - as root, as a user of its own owning WORK alone: it reads and writes
#   what any user may. A HIDE folder that user can reach is refused (exit
#   126: make it chmod 700). Every process of that user ends with it, and
#   what it left in /tmp, /var/tmp and /dev/shm is deleted.
# - as another user, with all that user's rights (its files, HIDE folders
#   included, its terminals, the supervisor that times it), and its session
#   alone ended: a process that leaves it lives on. Trust no grade of a
#   hostile class made so.
set -u
work=$1 seconds=$2
shift 2
hide=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hide+=("$1"); shift; done
shift
me=$(id -u)
supervisor=$(< "$(dirname "$0")/supervise.sh") || exit 1

# Nothing of the grader's terminal or files reaches the command: no fd but
# 0 to 2 (a lock, a pipe), stdin empty, and a terminal on stdout or stderr
# relayed through a pipe (TIOCSTI on one would type into the grader's
# shell). The relays ignore Ctrl-C: they end with the last writer.
for fd in "/proc/$$/fd/"*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && [ "$fd" != 255 ] && eval "exec $fd>&-"
done
exec < /dev/null
[ -t 1 ] && exec > >(trap '' INT TERM HUP; exec cat)
[ -t 2 ] && exec 2> >(trap '' INT TERM HUP; exec cat >&2)
trap '' PIPE

# As root, the command's user is one of its own, which no process has now
# (the number is this PID's), owning WORK while it runs: root inside the
# namespaces is that user outside.
uid=$me
[ "$me" = 0 ] && uid=$((200000 + $$))
view=0
[ "${SANDBOX:-}" != none ] && unshare --user --map-root-user --mount --pid --fork --net true 2> /dev/null && view=1
as='' # the user the supervisor runs the command as: in the fallback as root, its own
[ $view = 0 ] && [ "$me" = 0 ] && as=$uid
# In the fallback that user reads what any user may: no HIDE folder may be
# among it.
if [ -n "$as" ]; then
    for h in "${hide[@]}"; do
        if setpriv --reuid="$as" --regid="$as" --clear-groups -- test -r "$h" -o -x "$h"; then
            echo "sandbox: refused: the user it runs as could reach $h, a folder to hide:" \
                "make it reachable by its owner only: chmod 700 $h" >&2
            exit 126
        fi
    done
fi

pid='' cgroup=''
# Everything it started ends: its session (in the namespaces, their PID 1
# with it, and so all inside), and in the fallback as root every process
# of its user, wherever it went.
end_all() {
    [ -n "$pid" ] || return 0
    kill -KILL -- "-$pid" 2> /dev/null
    [ -z "$as" ] || setpriv --reuid="$as" --regid="$as" --clear-groups -- bash -c 'kill -KILL -1' 2> /dev/null
    wait "$pid" 2> /dev/null
    for _ in $(seq 100); do kill -0 -- "-$pid" 2> /dev/null || break; sleep 0.05; done
}
# What it wrote is the grader's again.
tidy() {
    [ "$me" = 0 ] || return 0
    find . -user "$uid" -exec chown -h "$me:$(id -g)" {} +
    [ -z "$as" ] || find /tmp /var/tmp /dev/shm -xdev -user "$as" -delete 2> /dev/null
    [ -z "$cgroup" ] || for _ in $(seq 40); do rmdir "$cgroup" 2> /dev/null && break; sleep 0.05; done
}
# shellcheck disable=SC2317 # the traps below call it
interrupted() { # SIGNAL: all ended first, then sandbox.sh dies of it
    trap '' INT TERM HUP
    end_all
    tidy
    trap - "$1"
    kill -"$1" $$
}
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM
trap 'interrupted HUP' HUP

cd "$work" || exit 1
if [ "$me" = 0 ]; then chown -R "$uid:$uid" . || exit 1; fi

# As root, a memory cgroup of its own (v2, else v1's memory hierarchy): it
# counts every page its processes hold, memfds and tmpfs files included,
# and its hard limit, twice SANDBOX_MEM_MB, bounds a burst between two of
# the supervisor's readings.
mem_mb=${SANDBOX_MEM_MB:-2048} events=''
if [ "$me" = 0 ]; then
    v1=/sys/fs/cgroup/memory$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
    if grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null; then
        cgroup=/sys/fs/cgroup/sandbox-$$ limit=memory.max events=memory.events
    elif [ -f "$v1/memory.limit_in_bytes" ]; then
        cgroup=${v1%/}/sandbox-$$ limit=memory.limit_in_bytes events=memory.oom_control
    fi
    if [ -n "$cgroup" ] && ! { mkdir "$cgroup" && echo $((mem_mb << 21)) > "$cgroup/$limit"; } 2> /dev/null; then
        rmdir "$cgroup" 2> /dev/null
        cgroup=''
    fi
    [ -z "$cgroup" ] || { echo 0 > "$cgroup/memory.swap.max"; } 2> /dev/null
fi

if [ $view = 0 ] && [ -n "$cgroup" ]; then
    echo "sandbox: no user namespaces here: running as user $uid, owner of its folder" \
        "alone, with time, process, file and memory limits (no disk limit)" >&2
elif [ $view = 0 ] && [ "$me" = 0 ]; then
    echo "sandbox: no user namespaces here: running as user $uid, owner of its folder" \
        "alone, with time, process and file limits (no memory or disk limit)" >&2
elif [ $view = 0 ]; then
    echo "sandbox: no user namespaces here: running without isolation, as this user (time," \
        "process and file limits only, no memory limit): trust no grade of a hostile class made so" >&2
fi

procs=${SANDBOX_PROCS:-256}
[ "$me" = 0 ] || procs=$(($(ps -u "$me" --no-headers | wc -l) + procs))
limits=(prlimit --nproc="$procs" --fsize=$((${SANDBOX_FILE_MB:-256} << 20)) --core=0)
# Nor its variables: a CI token, or a TMPDIR the command cannot reach. It
# gets a path, a home and a /tmp, where the compilers find libraries (a
# Criterion unpacked aside), and the GPU's choice.
clean=(env -i PATH="${PATH:-/usr/bin:/bin}" HOME=/tmp TMPDIR=/tmp LC_ALL=C)
for v in PKG_CONFIG_PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES; do
    [ -z "${!v:-}" ] || clean+=("$v=${!v}")
done
set -- "${clean[@]}" "$@"
supervise=(bash -c "$supervisor" supervise.sh "$view" "$as" "$seconds"
    "$mem_mb" "$cgroup" "${SANDBOX_DISK_MB:-1024}" "${SANDBOX_KEEP:-}" "${#hide[@]}" "${hide[@]}" "$@")

# start COMMAND...: in a session of its own, in the cgroup where there is one
start() {
    ( { [ -z "$cgroup" ] || echo "$BASHPID" > "$cgroup/cgroup.procs"; } && exec setsid "${limits[@]}" "$@" ) &
    pid=$!
}
if [ $view = 1 ] && [ "$me" = 0 ]; then
    # root writes the namespace's user map itself, with root inside as $uid
    # outside; until then the supervisor waits, with all its capabilities
    # inside (--keep-caps) to become that user
    start unshare --user --mount --pid --net --ipc --uts --fork --kill-child --keep-caps \
        bash -c 'until grep -q . /proc/self/uid_map; do sleep 0.01; done
            exec setpriv --reuid=0 --regid=0 --clear-groups --pdeathsig=KILL -- "$@"' sh "${supervise[@]}"
    while [ "$(readlink "/proc/$pid/ns/user")" = "$(readlink /proc/self/ns/user)" ]; do sleep 0.01; done
    if ! { echo "0 $uid 1" > "/proc/$pid/gid_map" && echo "0 $uid 1" > "/proc/$pid/uid_map"; } 2> /dev/null; then
        echo "sandbox: could not map user $uid into its namespace" >&2
        end_all
        tidy
        exit 1
    fi
elif [ $view = 1 ]; then
    start unshare --user --map-root-user --mount --pid --net --ipc --uts --fork --kill-child "${supervise[@]}"
else
    start "${supervise[@]}"
fi
wait "$pid"
status=$?
end_all
# the hard limit's work: the kernel ended a process of it
oom=$([ -z "$cgroup" ] || awk '$1 == "oom_kill" { print $2 }' "$cgroup/$events")
if [ "${oom:-0}" -gt 0 ] && [ "$status" != 125 ]; then
    echo "sandbox: stopped: past $((mem_mb * 2)) MiB of memory, the kernel killed a process of it" >&2
    status=125
fi
tidy
exit "$status"
