#!/usr/bin/env bash
# carry-slurm.sh [DIR]: Debian's Slurm and munge, with the libraries they
# load, as packages in DIR (default .slurm-debs, git-ignored), and
# DIR/unpack.sh, which puts them on a machine that has no network and no
# Slurm (the H100 run of results/emulation/grading.md: carried there with the
# checkout, then `sh .slurm-debs/unpack.sh`). unpack.sh adds files and
# never replaces one: what the machine has of a library is kept, so only
# the missing ones come from these packages.
set -eu
dir=${1:-.slurm-debs}
mkdir -p "$dir"
packages="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2
    libhwloc15 libjson-c5 liblua5.1-0 libnuma1 libyaml-0-2 libdbus-1-3 libreadline8 liblz4-1"
[ -n "$(find /var/lib/apt/lists -mindepth 1 -print -quit 2> /dev/null)" ] || apt-get update -qq
# shellcheck disable=SC2086 # a list of names
(cd "$dir" && apt-get download -q $packages) 2>&1 | grep -v 'unsandboxed' || true
debs=("$dir"/*.deb)
[ -f "${debs[0]}" ] || { echo "carry-slurm: apt-get downloaded nothing"; exit 1; }
cat > "$dir/unpack.sh" << 'UNPACK'
# unpack.sh: the packages beside it onto /, adding files only (the
# machine's own, and its links such as /lib -> usr/lib, are kept).
set -eu
here=$(dirname "$0") root=$(mktemp -d)
for f in "$here"/*.deb; do dpkg -x "$f" "$root"; done
tar -C "$root" -cf - . | tar -C / -xf - --skip-old-files --keep-directory-symlink
rm -rf "$root"
# the daemons' names, which Debian's scripts would give them (alternatives)
for f in /usr/sbin/*-wlm; do [ -e "${f%-wlm}" ] || ln -s "$f" "${f%-wlm}"; done
ldconfig
missing=$(for f in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/sbin/munged /usr/bin/sbatch \
    /usr/lib/x86_64-linux-gnu/slurm-wlm/*.so; do
    if [ -x "$f" ]; then ldd "$f" | grep 'not found'; else echo "$f"; fi; done | sort -u)
[ -z "$missing" ] || { echo "unpack.sh: still missing: $missing"; exit 1; }
echo "unpack.sh: Slurm $(slurmd -V | cut -d' ' -f2) and munge are here"
UNPACK
echo "carry-slurm: ${#debs[@]} packages in $dir, $(du -sh "$dir" | cut -f1); on the machine: sh $dir/unpack.sh"
