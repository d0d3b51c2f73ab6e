#!/usr/bin/env bash
# supervise.sh VIEW AS SECONDS MEM_MB CGROUP DISK_MB KEEP CONFINE_FD TMP
#     NHIDE HIDE... NALLOW ALLOW... COMMAND...:
# the sandbox's supervisor, which grading/sandbox.sh starts in WORK (its
# working directory). With VIEW=1 it runs as PID 1 of the sandbox's
# namespaces, which the command's processes cannot signal, and alone sees
# the real file system: it builds the command's view from nothing (a
# tmpfs root holding the NALLOW ALLOW paths, read-only, each link on the
# way to them a link; /proc; a /dev of its own; a fresh /tmp; a tmpfs copy
# of WORK of DISK_MB as its one place to write), checks that no HIDE folder
# shows in it, starts COMMAND chrooted there without capabilities, and
# copies back what KEEP names (all of WORK if empty). With VIEW=0 (no
# namespaces) it runs COMMAND in WORK itself, as user AS where one is
# given, its /tmp TMP; sandbox.sh ends the rest. Either way COMMAND runs
# through confine (grading/confine.c, open as fd CONFINE_FD, where there
# is one): Landlock allows it the same list, read-only, and its folders.
# It stops COMMAND after SECONDS, or once it holds more than MEM_MB (as the
# memory cgroup CGROUP counts it, where one is given; else, with VIEW=1, as
# /proc shows it).
set -e
view=$1 as=$2 seconds=$3 mem_mb=$4 cgroup=$5 disk_mb=$6 keep=$7 confine_fd=$8 tmp=$9
shift 9
hide=("${@:2:$1}")
shift $(($1 + 1))
allow=("${@:2:$1}")
shift $(($1 + 1))

# Landlock's rules: the allow-list to read, and where it writes, which
# VIEW decides; without confine, nothing. /proc is writable, as file modes
# let it be: CUDA's driver writes there, and finds no GPU where it cannot.
rules() { # WRITABLE...
    [ -n "$confine_fd" ] || return 0
    printf '%s\0' "/proc/self/fd/$confine_fd"
    printf -- '-r\0%s\0' "${allow[@]}"
    printf -- '-w\0%s\0' /proc "$@"
    printf -- '--\0'
}
if [ "$view" = 1 ]; then
    mount --make-rprivate /
    # the view's root in a /tmp of the supervisor's own: none left on the
    # host's (whose folders it then no longer sees, to give or to check)
    mount -t tmpfs -o size=64k tmpfs /tmp
    root=/tmp/view
    mkdir "$root"
    mount -t tmpfs -o size=1m,mode=755 tmpfs "$root"
    given=() # the host's folders and files bound into it
    # give PATH: the host's PATH, which no link leads through, bound
    # read-only at the same place, with what is mounted beneath it
    give() {
        local g m
        for g in "${given[@]}"; do [[ $1 != "$g" && $1 != "$g"/* ]] || return 0; done
        if [ -d "$1" ]; then mkdir -p "$root$1"; else mkdir -p "$root${1%/*}" && touch "$root$1"; fi
        mount --rbind "$1" "$root$1"
        awk -v at="$root$1" '$5 == at || index($5, at "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
            while read -r m; do mount -o remount,bind,ro "$m" 2> /dev/null || true; done
        given+=("$1")
    }
    # reach PATH [DEPTH]: PATH in the view as on the host: each link on the
    # way made there too and followed, the place it ends given
    reach() {
        local at=/ part rest=${1#/} depth=${2:-0} target
        [ "$depth" -lt 40 ] || return 0 # a loop of links
        while [ -n "$rest" ]; do
            part=${rest%%/*} rest=${rest#"$part"} rest=${rest#/}
            at=${at%/}/$part
            [ -e "$at" ] || return 0
            if [ -L "$at" ]; then
                [ -L "$root$at" ] || { mkdir -p "$root${at%/*}" && ln -s "$(readlink "$at")" "$root$at"; }
                target=$(readlink "$at")
                [[ $target == /* ]] || target=${at%/*}/$target
                reach "$(realpath -ms "$target")${rest:+/$rest}" $((depth + 1))
                return
            fi
        done
        give "$at"
    }
    for a in "${allow[@]}"; do reach "$a"; done
    mkdir "$root/proc" "$root/dev" "$root/tmp"
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
    mount -o remount,bind,ro "$root"
    # No HIDE folder may show in it, but for the toolchain folders given in
    # one (mounts of their own, which find -xdev does not enter). Where a
    # HIDE folder really is: an absolute link in its name would lead out of
    # $root.
    for h in "${hide[@]}"; do
        if real=$(realpath -e -- "$h" 2> /dev/null) && [ -e "$root$real" ] &&
           [ -n "$(find "$root$real" -xdev -mindepth 1 ! -type d -print -quit 2> /dev/null)" ]; then
            echo "sandbox: could not hide $h" >&2
            exit 126
        fi
    done
    set +e
    readarray -d '' confine < <(rules /tmp /dev)
    chroot "$root" setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs \
        -- "${confine[@]}" /bin/sh -c "cd /tmp/sandbox && exec \"\$@\"" sh "$@" &
else
    readarray -d '' confine < <(rules "$(pwd -P)" "$tmp" /dev/null /dev/zero /dev/full /dev/random /dev/urandom \
        /dev/nvidia*)
    set +e
    if [ -n "$as" ]; then
        setpriv --reuid="$as" --regid="$as" --clear-groups --bounding-set=-all --inh-caps=-all \
            --no-new-privs -- "${confine[@]}" "$@" &
    else
        "${confine[@]}" "$@" &
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
