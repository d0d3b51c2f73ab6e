#!/usr/bin/env bash
# sandbox.sh WORK SECONDS HIDE... -- COMMAND...: run COMMAND, untrusted, in a
# copy of WORK (a folder) seen inside as /tmp/sandbox, its working
# directory. When it ends, what the copy then holds at each of the paths
# SANDBOX_KEEP names (relative to WORK, split at spaces) replaces what WORK
# holds there; without SANDBOX_KEEP, the whole copy replaces WORK's contents.
#
# Plain Linux namespaces, through util-linux's unshare and setpriv (nothing
# to install). A user namespace makes the grader's user root inside; a mount
# namespace shows every file system read-only, each HIDE folder (the
# grader's checkout, the other submissions) covered by an empty one, and a
# fresh /tmp; there is no network; a PID namespace of its own keeps a
# kill(-1) or a fork bomb inside, and every process dies with it. COMMAND
# runs chrooted there with no capabilities at all, so it can neither leave
# the chroot, nor mount, nor look through /proc/1 at the supervisor
# (grading/supervise.sh), which alone sees the real file system.
#
# Limits, each ending the whole namespace with a line "sandbox: stopped: ..."
# on stderr: SECONDS of wall time (exit 124); SANDBOX_MEM_MB of memory held
# by all its processes together (default 2048; exit 125), read five times a
# second, so a burst between two readings can pass it briefly; the copy is
# a tmpfs of SANDBOX_DISK_MB (default 1024): a full one fails writes, not
# the grader's disk. Also SANDBOX_PROCS processes (default 256, counted for
# the grader's user) and SANDBOX_FILE_MB a file (default 256).
#
# Where user namespaces are refused (SANDBOX=none acts so), it says so on
# stderr and runs COMMAND in WORK itself with the time, process and file
# limits alone: as root (a container), under a user id of its own that owns
# WORK and nothing else; as another user, with that user's rights.
set -u
work=$1 seconds=$2
shift 2
hide=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hide+=("$1"); shift; done
shift
procs=$(( $(ps -u "$(id -u)" --no-headers | wc -l) + ${SANDBOX_PROCS:-256} ))
limits=(prlimit --nproc="$procs" --fsize=$(( ${SANDBOX_FILE_MB:-256} << 20 )) --core=0)

if [ "${SANDBOX:-}" = none ] || ! unshare --user --map-root-user --mount --pid --fork --net true 2> /dev/null; then
    if [ "$(id -u)" = 0 ]; then
        # root, as in a container that refuses namespaces: a user of its own
        # (a number no other sandbox running now has), owning WORK alone
        uid=$((200000 + $$))
        echo "sandbox: no user namespaces here: running as user $uid, owner of its folder" \
            "alone, with time, process and file limits (no memory or disk limit)" >&2
        chown -R "$uid:$uid" "$work" && cd "$work" &&
            exec timeout -k 5 "$seconds" "${limits[@]}" setpriv --reuid="$uid" --regid="$uid" \
                --clear-groups --no-new-privs -- "$@"
    fi
    echo "sandbox: no user namespaces here: running without isolation, as this user (time," \
        "process and file limits only): trust no grade of a hostile class made so" >&2
    cd "$work" && exec timeout -k 5 "$seconds" "${limits[@]}" "$@"
fi

work=$(cd "$work" && pwd)
keep=${SANDBOX_KEEP:-}
exec timeout -k 5 $((seconds + 120)) "${limits[@]}" \
    unshare --user --map-root-user --mount --pid --fork --net --ipc --uts --kill-child \
    bash "$(cd "$(dirname "$0")" && pwd)/supervise.sh" "$work" "$seconds" "${SANDBOX_MEM_MB:-2048}" \
    "${SANDBOX_DISK_MB:-1024}" "$keep" "${#hide[@]}" "${hide[@]}" "$@"
