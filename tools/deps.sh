#!/bin/sh
# deps.sh NVCC [TOOL...]: install what the workbook needs beside the CUDA
# toolkit: Criterion (the tests), pandoc (the handouts), gnuplot (make
# bench's plots) and pkg-config, through apt; and each TOOL, a command that
# its own package of that name installs (the instructors' shellcheck), or
# COMMAND=PACKAGE where the package has another name (munged=munge), or
# COMMAND="PACKAGE..." where more than one is needed.
nvcc=${1:-/usr/local/cuda/bin/nvcc}
[ $# -eq 0 ] || shift
missing=""
PATH=$PATH:/usr/sbin # where daemons are (slurmctld, munged), for root or not
command -v pkg-config > /dev/null 2>&1 || missing="$missing pkg-config"
pkg-config --exists criterion 2> /dev/null || missing="$missing libcriterion-dev"
command -v pandoc > /dev/null 2>&1 || missing="$missing pandoc"
command -v gnuplot > /dev/null 2>&1 || missing="$missing gnuplot-nox"
tools="" # the TOOLs' commands, for the closing line
for tool in "$@"; do
    command -v "${tool%%=*}" > /dev/null 2>&1 || missing="$missing ${tool#*=}"
    tools="$tools${tools:+, }${tool%%=*}"
done

if ! command -v "$nvcc" > /dev/null 2>&1; then
    echo "deps: no CUDA toolkit at $nvcc. Install it (NVIDIA's CUDA downloads page gives"
    echo "      the apt commands for your distribution), or point CUDA= at it."
fi
if [ -z "$missing" ]; then
    echo "deps: Criterion $(pkg-config --modversion criterion), $(pandoc --version | head -n 1) and $(gnuplot --version) are installed${tools:+, and so are $tools}"
    exit 0
fi
if ! command -v apt-get > /dev/null 2>&1; then
    echo "deps: missing:$missing. This is not a Debian/Ubuntu system: install them with"
    echo "      its package manager (Criterion's README lists packages for Fedora, Arch,"
    echo "      Homebrew and others), then run make check."
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo > /dev/null 2>&1; then
        sudo=sudo
    else
        echo "deps: installing$missing needs root. Ask an administrator to run:"
        echo "      apt-get install$missing"
        exit 1
    fi
fi
echo "deps: installing$missing"
# shellcheck disable=SC2086 # $missing is a list of package names, a word each
if ! { $sudo apt-get update -qq &&
       $sudo env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -qq --no-install-recommends $missing > /dev/null; }; then
    echo "deps: apt-get could not install$missing (see its messages above)."
    echo "      Without Criterion the tests cannot build; without pandoc the handouts, and"
    echo "      without gnuplot make bench's plots, are all that is missing."
    exit 1
fi
echo "deps: done: Criterion $(pkg-config --modversion criterion), $(pandoc --version | head -n 1), $(gnuplot --version)${tools:+, $tools}"
