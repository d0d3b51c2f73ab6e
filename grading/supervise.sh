#!/usr/bin/env bash
# supervise.sh VIEW AS SECONDS MEM_MB CGROUP DISK_MB KEEP NHIDE HIDE... COMMAND...:
# the sandbox's supervisor, which grading/sandbox.sh starts in WORK (its
# working directory). With VIEW=1 it runs as PID 1 of the sandbox's
# namespaces, which the command's processes cannot signal, and alone sees
# the real file system: it builds the command's view (every file system
# read-only; a /dev of its own; /run, /var/run and the NHIDE HIDE folders
# covered; a fresh /tmp; a tmpfs copy of WORK of DISK_MB as its one place
# to write), starts COMMAND chrooted there without capabilities, and
# copies back what KEEP names (all of WORK if empty). With VIEW=0 (no
# namespaces) it runs COMMAND in WORK itself, as user AS where one is
# given; sandbox.sh ends the rest. Either way it stops COMMAND after
# SECONDS, or once it holds more than MEM_MB (as the memory cgroup CGROUP
# counts it, where one is given; else, with VIEW=1, as /proc shows it).
set -e
view=$1 as=$2 seconds=$3 mem_mb=$4 cgroup=$5 disk_mb=$6 keep=$7 nhide=$8
shift 8
hide=("${@:1:nhide}")
shift "$nhide"
if [ "$view" = 1 ]; then
    mount --make-rprivate /
    # the view's root in a /tmp of the supervisor's own: none left on the host's
    mount -t tmpfs -o size=64k tmpfs /tmp
    root=/tmp/view
    mkdir "$root"
    mount --rbind / "$root"
    # every mount read-only, the top and those beneath it
    awk "{print \$5}" /proc/self/mountinfo | grep "^$root" | sort -r | while read -r m; do
        mount -o remount,bind,ro "$m" 2> /dev/null || true
    done
    mount -t proc proc "$root/proc"
    mount -t tmpfs -o size=512m tmpfs "$root/tmp"
    mkdir "$root/tmp/sandbox"
    mount -t tmpfs -o size="$disk_mb"m tmpfs "$root/tmp/sandbox"
    cp -a ./. "$root/tmp/sandbox/"
    # a /dev of its own: the usual nodes and the GPU's; no socket (/dev/log),
    # no terminal (its /dev/tty opens none: its session has none)
    mount -t tmpfs -o size=64k,mode=755 tmpfs "$root/dev"
    for node in /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/nvidia*; do
        [ -e "$node" ] || continue
        if [ -d "$node" ]; then mkdir "$root$node"; else touch "$root$node"; fi
        mount --bind "$node" "$root$node"
    done
    ln -s /proc/self/fd "$root/dev/fd"
    for k in 0:stdin 1:stdout 2:stderr; do ln -s "/proc/self/fd/${k%:*}" "$root/dev/${k#*:}"; done
    mkdir "$root/dev/shm"
    mount -o remount,bind,ro "$root/dev"
    mount -t tmpfs -o size=64m tmpfs "$root/dev/shm"
    # Each HIDE folder, and /run and /var/run (where sockets live), covered
    # by an empty one where it really is: an absolute link in its name
    # would lead the mount out of $root. Then, as the command sees it, each
    # must be empty.
    for h in "${hide[@]}" /run /var/run; do
        if real=$(realpath -e -- "$h" 2> /dev/null) && [ -d "$root$real" ]; then
            mount -t tmpfs -o ro,size=4k,mode=755 tmpfs "$root$real" || true
        fi
        [ -z "$(chroot "$root" ls -A -- "$h" 2> /dev/null)" ] || { echo "sandbox: could not hide $h" >&2; exit 126; }
    done
    set +e
    chroot "$root" setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs \
        -- /bin/sh -c "cd /tmp/sandbox && exec \"\$@\"" sh "$@" &
else
    set +e
    if [ -n "$as" ]; then
        setpriv --reuid="$as" --regid="$as" --clear-groups --bounding-set=-all --inh-caps=-all \
            --no-new-privs -- "$@" &
    else
        "$@" &
    fi
fi
command=$!

# What its processes hold, in MiB: anonymous and shared memory (memfds,
# SysV segments, files in its tmpfs folders), as its memory cgroup counts
# it; without one, summed from /proc: each process's anonymous and mapped
# shared pages, every memfd an fd of theirs holds, every SysV segment, and
# the tmpfs folders' use.
held_mb() {
    if [ -n "$cgroup" ]; then
        awk '$1 ~ /^(anon|shmem|total_rss|total_shmem|total_swap)$/ { b += $2 } END { print int(b / 1048576) }' \
            "$cgroup/memory.stat"
    elif [ "$view" = 1 ]; then
        {
            cat "$root"/proc/[0-9]*/status | awk '/^(RssAnon|RssShmem):/ { print $2 }'
            find "$root"/proc/[0-9]*/fd -lname '/memfd:*' -exec stat -L -c '%i %b %B' {} + | sort -u |
                awk '{ print $2 * $3 / 1024 }'
            awk 'NR > 1 { print $15 / 1024 }' "$root/proc/sysvipc/shm"
            df -k --output=used "$root/tmp" "$root/tmp/sandbox" "$root/dev/shm" | tail -n +2
        } 2> /dev/null | awk '{ kb += $1 } END { print int(kb / 1024) }'
    else
        echo 0
    fi
}
exec 3>&2 2> /dev/null # quiet: bash notices of dead jobs; the command keeps its stderr
stop='' status=''
end=$((SECONDS + seconds))
while kill -0 "$command" 2> /dev/null; do
    if [ "$(held_mb)" -gt "$mem_mb" ]; then
        stop="its processes held more than $mem_mb MiB of memory" status=125; break
    elif [ "$SECONDS" -ge "$end" ]; then
        stop="still running after $seconds s" status=124; break
    fi
    sleep 0.2
done
if [ "$view" = 1 ]; then kill -KILL -1; else kill -KILL "$command"; fi 2> /dev/null
wait "$command"
code=$?
if [ -n "$stop" ]; then echo "sandbox: stopped: $stop" >&3
else status=$code; [ "$code" -le 128 ] || echo "sandbox: killed by signal $((code - 128)) ($(kill -l "$code"))" >&3; fi
[ "$view" = 1 ] || exit "$status"
[ -n "$keep" ] || { find . -mindepth 1 -delete && cp -a "$root/tmp/sandbox/." .; }
for kept in $keep; do
    rm -rf "./$kept"
    if [ -e "$root/tmp/sandbox/$kept" ] || [ -L "$root/tmp/sandbox/$kept" ]; then
        cp -a "$root/tmp/sandbox/$kept" "./$kept"
    fi
done
exit "$status"
