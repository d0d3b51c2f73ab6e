#!/usr/bin/env bash
# sandbox.sh WORK SECONDS HIDE... -- COMMAND...: run COMMAND, untrusted, in a
# copy of WORK (a folder) seen inside as /tmp/sandbox, its working
# directory. When it ends, what the copy then holds at each of the paths
# SANDBOX_KEEP names (relative to WORK, split at spaces) replaces what WORK
# holds there; without SANDBOX_KEEP, the whole copy replaces WORK's contents.
# What comes back is the grader's. HIDE: absolute paths of folders it must
# not read (the grader's checkout, the submissions, the grades), checked:
# the allow-list keeps them out.
#
# The allow-list, default-deny: of the host COMMAND reads (and runs) only
# /usr and the links to it (/bin, /lib...), the few files of /etc that the
# compilers and make read (ld.so's cache, passwd, alternatives...), and the
# folders that PATH, CPATH, LIBRARY_PATH, LD_LIBRARY_PATH and
# PKG_CONFIG_PATH name, each alone, even inside a HIDE folder (a Criterion
# unpacked in the checkout); besides, /dev's usual nodes and the GPU's,
# /proc, its own /tmp and WORK. No home, no /srv, /opt or /var, no other
# checkout, no /etc/hostname.
#
# In every mode COMMAND has no terminal (a session of its own, stdin
# /dev/null, a terminal on stdout or stderr reached through a pipe), no
# fd of the grader's but 0 to 2, and none of its environment but PATH, the
# compilers' search paths and CUDA_VISIBLE_DEVICES (HOME, TMPDIR: its
# /tmp); it writes files of SANDBOX_FILE_MB at most (default 256); after
# SECONDS it is stopped (exit 124), saying "sandbox: stopped: ..." on
# stderr. An interrupt (INT, TERM, HUP) ends all it started, then
# sandbox.sh. What its mode lacks (namespaces, Landlock, a cgroup) it
# says first, in one line on stderr.
#
# CPU and processes: as root, where it can make them, cgroups of its own
# cap its CPU time at SANDBOX_CPUS CPUs (default 1; 0.5: half of one) and
# its processes (threads too) at SANDBOX_PROCS (default 256), its
# supervisor's included: a hog slows itself, not its classmates. Without
# them it runs at nice 19, its processes counted by RLIMIT_NPROC alone
# (per user: as another user than root, on top of those it has).
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
# IPC and UTS namespaces, runs COMMAND chrooted, without capabilities, in a
# root built from nothing: the allow-list, read-only (and /sys where there
# is a GPU: its driver reads the GPU's topology there); a /dev of its own
# (null, zero, full, random, urandom, tty, shm, /dev/nvidia*); its copy of
# WORK (a tmpfs of SANDBOX_DISK_MB, default 1024: a full one fails writes),
# a fresh /tmp and /dev/shm, the only places it writes. It reaches no
# network, no process outside, and no socket. Its user: as root, a user of
# its own (200000 + this PID) outside, root inside; as another user, that
# user. A HIDE folder it would see (but for a toolchain folder given in
# it) stops it before it starts (exit 126). Landlock holds it to the same
# list besides, for a cost too small to measure.
#
# Without them (refused here, or SANDBOX=none) it runs COMMAND in WORK
# itself, with the host's sockets and network, held by Landlock
# (grading/confine.c) to the allow-list, WORK and a /tmp of its own, its
# signals and TCP kept in where the kernel knows how (ABI 6 and 4):
# - as root, as a user of its own owning WORK alone. A HIDE folder that
#   user can reach is refused (exit 126: make it chmod 700), as it would
#   be read without Landlock. Every process of that user ends with it, and
#   what it left in /tmp, /var/tmp and /dev/shm is deleted.
# - as another user, with that user's rights within Landlock's (without
#   Landlock: its files, HIDE folders included), its terminals, the
#   supervisor that times it; its session alone is ended: a process that
#   leaves it lives on. Trust no grade of a hostile class made so.
# confine is built on first use into build/grading/ beside this folder;
# where cc cannot build it, or the kernel has no Landlock, this mode's
# line says "no Landlock here".
set -u
work=$1 seconds=$2
shift 2
hide=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hide+=("$1"); shift; done
shift
me=$(id -u)
here=$(cd "$(dirname "$0")" && pwd) || exit 1
supervisor=$(< "$here/supervise.sh") || exit 1

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

cpus=${SANDBOX_CPUS:-1} procs=${SANDBOX_PROCS:-256} mem_mb=${SANDBOX_MEM_MB:-2048}
if ! [[ $cpus =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || [ "$(awk -v c="$cpus" 'BEGIN { print (c > 0) }')" = 0 ]; then
    echo "sandbox: SANDBOX_CPUS=$cpus is no number of CPUs (1, 0.5, 4...)" >&2
    exit 1
fi

# The allow-list: what a build and a run need of the host, read-only (CUDA
# wherever its link leads).
allow=(/usr /bin /sbin /lib /lib32 /lib64 /libx32 /usr/local/cuda)
for f in ld.so.cache ld.so.conf ld.so.conf.d alternatives passwd group nsswitch.conf localtime; do
    allow+=("/etc/$f")
done
for v in PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH; do
    IFS=: read -ra dirs <<< "${!v:-}"
    for d in "${dirs[@]}"; do [[ $d != /* ]] || allow+=("$d"); done
done
# the GPU's driver reads its topology in /sys
[ -z "$(compgen -G '/dev/nvidia*')" ] || allow+=(/sys)

# confine (grading/confine.c), Landlock's half: built on first use, handed
# to the supervisor as fd 9, which the command need not be able to reach
# (in the fallback, this checkout is its owner's alone).
confine=$here/../build/grading/confine landlock=''
if [ ! -x "$confine" ] || [ "$here/confine.c" -nt "$confine" ]; then
    if mkdir -p "${confine%/*}" && cc -std=gnu11 -O2 -o "$confine.$$" "$here/confine.c" 2> /dev/null; then
        mv -f "$confine.$$" "$confine"
    fi
fi
if [ -x "$confine" ] && [ "$("$confine" --abi)" -gt 0 ] && exec 9< "$confine"; then
    landlock=$("$confine" --abi)
fi

# As root, the command's user is one of its own, which no process has now
# (the number is this PID's), owning WORK while it runs: root inside the
# namespaces is that user outside.
uid=$me
[ "$me" = 0 ] && uid=$((200000 + $$))
view=0
[ "${SANDBOX:-}" != none ] && unshare --user --map-root-user --mount --pid --fork --net true 2> /dev/null && view=1
as='' # the user the supervisor runs the command as: in the fallback as root, its own
[ $view = 0 ] && [ "$me" = 0 ] && as=$uid
# In the fallback that user reads what any user may, where Landlock does
# not stop it: no HIDE folder may be among it.
if [ -n "$as" ]; then
    for h in "${hide[@]}"; do
        if setpriv --reuid="$as" --regid="$as" --clear-groups -- test -r "$h" -o -x "$h"; then
            echo "sandbox: refused: the user it runs as could reach $h, a folder to hide:" \
                "make it reachable by its owner only: chmod 700 $h" >&2
            exit 126
        fi
    done
fi

pid='' cgroup='' cgroups=() tmp=''
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
# What it wrote is the grader's again; its cgroups and /tmp are gone.
tidy() {
    local c
    [ -z "$tmp" ] || rm -rf "$tmp"
    for c in "${cgroups[@]}"; do
        for _ in $(seq 40); do rmdir "$c" 2> /dev/null && break; sleep 0.05; done
    done
    [ "$me" = 0 ] || return 0
    find . -user "$uid" -exec chown -h "$me:$(id -g)" {} +
    [ -z "$as" ] || find /tmp /var/tmp /dev/shm -xdev -user "$as" -delete 2> /dev/null
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
# In the fallback its /tmp is a folder of its own, where Landlock lets it write.
if [ $view = 0 ]; then
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-tmp.XXXXXX") || exit 1
    [ "$me" != 0 ] || chown "$uid:$uid" "$tmp" || exit 1
fi

# As root, cgroups of its own, where it can make them: in v2 one, under
# the root; in v1 one in each controller's hierarchy, beside this
# process's. Memory: its hard limit, twice SANDBOX_MEM_MB, bounds a burst
# between two of the supervisor's readings, and it counts every page its
# processes hold, memfds and tmpfs files included. CPU: its time per period.
# Processes: all of them, its supervisor's included.
made=() # the controllers it got
# cgroup_for CONTROLLER: $at, this sandbox's cgroup for it, made (or '')
cgroup_for() {
    at=/sys/fs/cgroup/sandbox-$$
    if ! grep -qw "$1" /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null; then
        at=/sys/fs/cgroup/$1$(awk -F: -v c="$1" '{ n = split($2, cs, ",")
            for (k = 1; k <= n; k++) if (cs[k] == c) print $3 }' /proc/self/cgroup)
        at=${at%/}/sandbox-$$
    fi
    if ! { [ -d "$at" ] || mkdir "$at"; } 2> /dev/null; then at=''; return; fi
    [[ " ${cgroups[*]} " == *" $at "* ]] || cgroups+=("$at")
}
set_in() { # FILE VALUE: VALUE written into $at/FILE, or false
    { echo "$2" > "$at/$1"; } 2> /dev/null
}
if [ "$me" = 0 ]; then
    cgroup_for memory
    if [ -n "$at" ] && { set_in memory.max $((mem_mb << 21)) || set_in memory.limit_in_bytes $((mem_mb << 21)); }; then
        cgroup=$at made+=(memory)
        set_in memory.swap.max 0
    fi
    quota=$(awk -v c="$cpus" 'BEGIN { q = int(c * 100000); print (q < 1000 ? 1000 : q) }')
    cgroup_for cpu
    if [ -n "$at" ] && { set_in cpu.max "$quota 100000" ||
        { set_in cpu.cfs_period_us 100000 && set_in cpu.cfs_quota_us "$quota"; }; }; then
        made+=(cpu)
    fi
    cgroup_for pids
    [ -n "$at" ] && set_in pids.max "$procs" && made+=(pids)
fi
has() { [[ " ${made[*]} " == *" $1 "* ]]; }
events=memory.events
[ -z "$cgroup" ] || [ -f "$cgroup/$events" ] || events=memory.oom_control

# What this mode holds it with, said in one line where it lacks anything.
limits="time and file limits"
if has memory || [ $view = 1 ]; then limits="time, file and memory limits"; fi
if has cpu; then limits+=", $cpus CPU (cgroup)"; else limits+=", nice 19"; fi
if has pids; then limits+=", $procs processes (cgroup)"; else limits+=", $procs processes (RLIMIT_NPROC)"; fi
files="reading only the toolchain and its folder (Landlock ABI $landlock)"
[ -n "$landlock" ] || files="reading what $([ -n "$as" ] && echo "any user" || echo "this user") may (no Landlock here)"
lacks=''
has memory || [ $view = 1 ] || lacks="no memory or disk limit"
[ -z "$lacks" ] && [ $view = 0 ] && lacks="no disk limit"
if [ $view = 0 ] && [ -n "$as" ]; then
    echo "sandbox: no user namespaces here: running as user $uid, owner of its folder alone, $files, with $limits ($lacks)" >&2
elif [ $view = 0 ]; then
    echo "sandbox: no user namespaces here: running without isolation, as this user, $files, with $limits" \
        "($lacks): trust no grade of a hostile class made so" >&2
elif [ -z "$landlock" ] || ! has cpu || ! has pids; then
    echo "sandbox: user namespaces, a view of the allow-list alone, with $limits$([ -n "$landlock" ] || echo "; no Landlock here")" >&2
fi

# RLIMIT_NPROC counts a user's processes: as another user than root, those
# it has already too.
nproc=$procs
[ "$me" = 0 ] || nproc=$(($(ps -u "$me" --no-headers | wc -l) + procs))
limits=(prlimit --nproc="$nproc" --fsize=$((${SANDBOX_FILE_MB:-256} << 20)) --core=0)
has cpu || limits=(nice -n 19 "${limits[@]}")
# Nor its variables: a CI token, or a TMPDIR the command cannot reach. It
# gets a path, a home and a /tmp, where the compilers find libraries (a
# Criterion unpacked aside), and the GPU's choice.
clean=(env -i PATH="${PATH:-/usr/bin:/bin}" HOME="${tmp:-/tmp}" TMPDIR="${tmp:-/tmp}" LC_ALL=C)
for v in PKG_CONFIG_PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES; do
    [ -z "${!v:-}" ] || clean+=("$v=${!v}")
done
set -- "${clean[@]}" "$@"
supervise=(bash -c "$supervisor" supervise.sh "$view" "$as" "$seconds" "$mem_mb" "$cgroup"
    "${SANDBOX_DISK_MB:-1024}" "${SANDBOX_KEEP:-}" "$([ -n "$landlock" ] && echo 9)" "$tmp"
    "${#hide[@]}" "${hide[@]}" "${#allow[@]}" "${allow[@]}" "$@")

# start COMMAND...: in a session of its own, in its cgroups
start() {
    ( for c in "${cgroups[@]}"; do echo "$BASHPID" > "$c/cgroup.procs" || exit 1; done
      exec setsid "${limits[@]}" "$@" ) &
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
