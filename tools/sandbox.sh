#!/usr/bin/env bash
# sandbox.sh WORK SECONDS HIDE... -- COMMAND...: run COMMAND, untrusted, with
# WORK (a folder) as its only writable place, seen inside as /tmp/sandbox
# (its working directory).
#
# Plain Linux namespaces, through util-linux's unshare (no package to add):
# a user namespace (root inside, the grader's unprivileged user outside), a
# mount namespace where every file system is read-only but WORK and a fresh
# /tmp and /dev/shm, each HIDE folder covered by an empty one (the grader's
# checkout, the other submissions), no network, and a PID namespace of its
# own, so that a kill(-1) or a fork bomb stays inside and every process dies
# with it. Limits: SECONDS of wall time, then KILL; SANDBOX_PROCS processes
# (default 256, counted for the grader's user), SANDBOX_FILE_MB per file
# written (default 256). Where user namespaces are refused it says so once
# on stderr and runs COMMAND with the limits alone (SANDBOX=none forces it).
set -u
work=$1 seconds=$2
shift 2
hide=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hide+=("$1"); shift; done
shift
procs=$(( $(ps -u "$(id -u)" --no-headers | wc -l) + ${SANDBOX_PROCS:-256} ))
limits=(prlimit --nproc="$procs" --fsize=$(( ${SANDBOX_FILE_MB:-256} << 20 )) --core=0)

if [ "${SANDBOX:-}" = none ] || ! unshare --user --map-root-user --mount --pid --fork --net true 2> /dev/null; then
    echo "sandbox: no user namespaces here: running without isolation (time and process limits only)" >&2
    cd "$work" && exec timeout -k 5 "$seconds" "${limits[@]}" "$@"
fi

# Inside: build the read-only view, then chroot into it and drop nothing
# more (root in a user namespace owns nothing outside it).
inside='
set -e
root=$(mktemp -d)
work=$1 seconds=$2 nhide=$3; shift 3
mount --make-rprivate /
mount --rbind / "$root"
# every mount read-only, the top and those beneath it
awk "{print \$5}" /proc/self/mountinfo | grep "^$root" | sort -r | while read -r m; do
    mount -o remount,bind,ro "$m" 2> /dev/null || true
done
mount -t proc proc "$root/proc"
mount -t tmpfs -o size=512m tmpfs "$root/tmp"
mount -t tmpfs -o size=64m tmpfs "$root/dev/shm"
mkdir -p "$root/tmp/sandbox"
mount --bind "$work" "$root/tmp/sandbox"
for _ in $(seq "$nhide"); do
    [ -d "$root$1" ] && mount -t tmpfs -o ro,size=4k tmpfs "$root$1"
    shift
done
exec chroot "$root" /bin/sh -c "cd /tmp/sandbox && exec \"\$@\"" sh "$@"
'
work=$(cd "$work" && pwd)
exec timeout -k 5 "$seconds" "${limits[@]}" \
    unshare --user --map-root-user --mount --pid --fork --net --ipc --uts --kill-child \
    bash -c "$inside" sandbox "$work" "$seconds" "${#hide[@]}" "${hide[@]}" "$@"
