# shellcheck shell=bash
# debian-root.sh: sourced by the tests that make a Debian root with
# debootstrap and work in it (tests/devcontainer, old-glibc-test.sh): the
# checks first, a folder for the root, what is mounted in it, all undone
# when the test ends, and a command run inside it as a RUN line runs.

# debian_root NAME: checks root and debootstrap (saying in a line, through
# the test's say(), what is missing), then sets mirror (MIRROR=), tmp (a
# folder NAME.XXXXXX) and sys (the root, inside it): KEEP=1 keeps them.
debian_root() {
    [ "$(id -u)" -eq 0 ] || { say "not run: making a Debian root needs root"; return 1; }
    PATH=$PATH:/usr/sbin
    command -v debootstrap > /dev/null ||
        { say "not run: debootstrap is missing (make deps-devcontainer installs it)"; return 1; }
    chroot=$(command -v chroot) # by its path: in_root's env -i has no PATH of ours
    # shellcheck disable=SC2034 # for the script that sources this one
    mirror=${MIRROR:-http://deb.debian.org/debian}
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") && sys=$tmp/root || return 1
    mounts=()
    trap debian_root_cleanup EXIT
}
# shellcheck disable=SC2317 # run by the trap
debian_root_cleanup() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2> /dev/null; done
    if grep -q " $sys/" /proc/mounts; then say "left $tmp: something is still mounted in it"
    elif [ -n "${KEEP:-}" ]; then say "kept $sys"
    else rm -rf "$tmp"; fi
}
# mount_in WHAT WHERE MOUNT-ARGS...: WHAT at WHERE inside the root
mount_in() { mkdir -p "$sys$2" && mount "${@:3}" "$1" "$sys$2" && mounts+=("$sys$2"); }
# in_root [ARGS...]: a command in the root with an empty environment
in_root() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$chroot" "$sys" "$@"; }
