#!/bin/sh
# arm64-root.sh ROOT: arm64's Criterion and every library it needs at run
# time (libstdc++ and glibc's included), from Debian's packages, unpacked
# into ROOT: the files an arm64 build of the workbook links against and
# qemu-user loads (QEMU_LD_PREFIX=ROOT). Unpacked, not installed: Debian 12
# will not hold amd64's and arm64's Criterion side by side. Needs root the
# first time, to add arm64 to apt's architectures.
set -eu
root=${1:?arm64-root.sh ROOT}
if [ -e "$root/usr/lib/aarch64-linux-gnu/libcriterion.so" ]; then
    echo "deps: arm64's Criterion is unpacked in $root"
    exit 0
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "deps: apt must know arm64 packages: as root, dpkg --add-architecture arm64 && apt-get update"
        exit 1
    fi
    dpkg --add-architecture arm64
    apt-get update -qq
fi
# Criterion's run-time libraries, and theirs, and so on
packages=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances --no-pre-depends libcriterion3:arm64 libstdc++6:arm64 |
    grep '^[a-z0-9].*:arm64$' | sort -u)
debs=$(mktemp -d "${TMPDIR:-/tmp}/arm64-debs.XXXXXX")
trap 'rm -rf "$debs"' EXIT
# shellcheck disable=SC2086 # a package name a word
(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root libcriterion-dev:arm64 $packages)
mkdir -p "$root"
for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
echo "deps: arm64's Criterion $(dpkg-deb -f "$debs"/libcriterion-dev_*.deb Version) and $(echo "$packages" | wc -l) libraries unpacked in $root"
