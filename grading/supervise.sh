#!/usr/bin/env bash
# supervise.sh WORK SECONDS MEM_MB DISK_MB KEEP NHIDE HIDE... COMMAND...:
# the sandbox's supervisor (grading/sandbox.sh starts it). It runs as PID 1
# of the sandbox's namespaces, which the command's processes cannot signal,
# and alone sees the real file system: it builds the command's view (every
# file system read-only, the NHIDE HIDE folders covered, a tmpfs copy of
# WORK of DISK_MB as the one writable place), starts COMMAND chrooted there
# without capabilities, stops it after SECONDS or when its processes hold
# more than MEM_MB, and copies back what KEEP names (all of WORK if empty).
set -e
work=$1 seconds=$2 mem_mb=$3 disk_mb=$4 keep=$5 nhide=$6; shift 6
root=$(mktemp -d)
mount --make-rprivate /
mount --rbind / "$root"
# every mount read-only, the top and those beneath it
awk "{print \$5}" /proc/self/mountinfo | grep "^$root" | sort -r | while read -r m; do
    mount -o remount,bind,ro "$m" 2> /dev/null || true
done
mount -t proc proc "$root/proc"
mount -t tmpfs -o size=512m tmpfs "$root/tmp"
mount -t tmpfs -o size=64m tmpfs "$root/dev/shm"
mkdir "$root/tmp/sandbox"
mount -t tmpfs -o size="$disk_mb"m tmpfs "$root/tmp/sandbox"
cp -a "$work/." "$root/tmp/sandbox/"
for _ in $(seq "$nhide"); do
    [ -d "$root$1" ] && mount -t tmpfs -o ro,size=4k tmpfs "$root$1"
    shift
done
set +e
chroot "$root" setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs \
    -- /bin/sh -c "cd /tmp/sandbox && exec \"\$@\"" sh "$@" &
command=$!
exec 3>&2 2> /dev/null # quiet: bash notices of dead jobs; the command keeps its stderr
stop='' status=''
end=$((SECONDS + seconds))
while kill -0 "$command" 2> /dev/null; do
    used=$(cat "$root"/proc/[0-9]*/status 2> /dev/null | awk "/^VmRSS:/ { kb += \$2 } END { print int(kb / 1024) }")
    if [ "${used:-0}" -gt "$mem_mb" ]; then
        stop="its processes held more than $mem_mb MiB of memory" status=125; break
    elif [ "$SECONDS" -ge "$end" ]; then
        stop="still running after $seconds s" status=124; break
    fi
    sleep 0.2
done
kill -KILL -1 2> /dev/null
wait "$command"
code=$?
if [ -n "$stop" ]; then echo "sandbox: stopped: $stop" >&3
else status=$code; [ "$code" -le 128 ] || echo "sandbox: killed by signal $((code - 128)) ($(kill -l "$code"))" >&3; fi
[ -n "$keep" ] || { find "$work" -mindepth 1 -delete && cp -a "$root/tmp/sandbox/." "$work/"; }
for kept in $keep; do
    rm -rf "${work:?}/$kept"
    if [ -e "$root/tmp/sandbox/$kept" ] || [ -L "$root/tmp/sandbox/$kept" ]; then
        cp -a "$root/tmp/sandbox/$kept" "$work/$kept"
    fi
done
exit "$status"
