#!/bin/sh
# install.sh USER: what the devcontainer's image adds to debian:12, run as
# root by the Dockerfile's one RUN line: a C and C++ compiler, GNU make
# and git, then make deps's packages (Criterion, pandoc, gnuplot,
# pkg-config: tools/deps.sh holds their one list), then USER, whom the
# container runs as, with sudo for what else they want to install. The
# image itself has not been built where the workbook is made (no image
# registry is reachable there); tests/devcontainer (make
# check-devcontainer) runs this script in a fresh Debian 12 root instead.
set -eu
user=$1
here=$(cd "$(dirname "$0")" && pwd)
# Debian's names: a compiler and make (build-essential), git with the
# certificates it checks an https remote against, sudo, and shellcheck,
# which the instructors' make check reads every script with
sh "$here/../tools/deps.sh" /usr/local/cuda/bin/nvcc g++=build-essential git="git ca-certificates" \
    sudo shellcheck
useradd --create-home --shell /bin/bash --uid 1000 "$user"
echo "$user ALL=(ALL) NOPASSWD: ALL" > "/etc/sudoers.d/$user"
chmod 0440 "/etc/sudoers.d/$user"
# what apt fetched, which the image need not carry
apt-get clean
rm -rf /var/lib/apt/lists/*
