#!/bin/sh
# deps.sh NVCC [TOOL...]: install what the workbook needs beside a C and
# C++ compiler and GNU make: Criterion (the tests), pandoc (the handouts),
# gnuplot (make bench's plots) and pkg-config, through apt (Debian, Ubuntu,
# WSL2) or Homebrew (macOS); and each TOOL, a command that its own package
# of that name installs (the instructors' shellcheck), or COMMAND=PACKAGE
# where the Debian package has another name (munged=munge), or
# COMMAND="PACKAGE..." where more than one is needed. Those Debian names
# are apt's alone: Homebrew installs a TOOL only where its formula is
# named as its command is.
nvcc=${1:-/usr/local/cuda/bin/nvcc}
[ $# -eq 0 ] || shift
names="" apt="" brew="" unbrewed="" # what is missing: for people, apt, Homebrew, neither
# need NAME APT BREW: NAME is missing; apt's package for it is APT, Homebrew's
# formula BREW (none: BREW empty)
need() {
    names="$names${names:+, }$1" apt="$apt $2"
    if [ -n "$3" ]; then brew="$brew $3"; else unbrewed="$unbrewed${unbrewed:+, }$1"; fi
}
PATH=$PATH:/usr/sbin # where daemons are (slurmctld, munged), for root or not
command -v pkg-config > /dev/null 2>&1 || need pkg-config pkg-config pkg-config
pkg-config --exists criterion 2> /dev/null || need Criterion libcriterion-dev criterion
command -v pandoc > /dev/null 2>&1 || need pandoc pandoc pandoc
command -v gnuplot > /dev/null 2>&1 || need gnuplot gnuplot-nox gnuplot
tools="" missing_tools="" # the TOOLs' commands, for the closing line; those missing
for tool in "$@"; do
    command -v "${tool%%=*}" > /dev/null 2>&1 ||
        missing_tools="$missing_tools${missing_tools:+, }${tool%%=*}"
    case $tool in
        *=*) command -v "${tool%%=*}" > /dev/null 2>&1 || need "${tool%%=*}" "${tool#*=}" "" ;;
        *)   command -v "$tool" > /dev/null 2>&1 || need "$tool" "$tool" "$tool" ;;
    esac
    tools="$tools${tools:+, }${tool%%=*}"
done
# what is lost without what could not be installed, a line each
lost() {
    case ", $names, " in *", Criterion, "*) echo "      Without Criterion the tests cannot build." ;; esac
    case ", $names, " in *", pandoc, "*) echo "      Without pandoc the handouts' HTML is all that is missing." ;; esac
    case ", $names, " in *", gnuplot, "*) echo "      Without gnuplot make bench's plots are all that is missing." ;; esac
    [ -z "$missing_tools" ] || echo "      Without $missing_tools the make target that asked for them cannot run."
}

# The Makefile falls back to the CPU emulation (EMU=1) where nvidia-smi
# finds no GPU, and then needs no CUDA toolkit.
system=$(uname -s)
if ! command -v "$nvcc" > /dev/null 2>&1; then
    if [ "$system" = Darwin ]; then
        echo "deps: no CUDA toolkit, and none is needed: macOS has none, and the labs run on the CPU emulation (EMU=1)."
    elif nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
        echo "deps: no CUDA toolkit at $nvcc. Install it (NVIDIA's CUDA downloads page gives"
        echo "      the apt commands for your distribution), or point CUDA= at it."
    else
        echo "deps: no CUDA toolkit at $nvcc, and none is needed without an NVIDIA GPU: the labs run on the CPU emulation (EMU=1)."
    fi
fi
if [ -z "$names" ]; then
    echo "deps: Criterion $(pkg-config --modversion criterion), $(pandoc --version | head -n 1) and $(gnuplot --version) are installed${tools:+, and so are $tools}"
    exit 0
fi

installed() {
    echo "deps: done: Criterion $(pkg-config --modversion criterion), $(pandoc --version | head -n 1), $(gnuplot --version)${tools:+, $tools}"
}

# macOS, or a Linux without apt, through Homebrew. It installs as the user,
# never as root.
manager=""
if [ "$system" != Darwin ] && command -v apt-get > /dev/null 2>&1; then
    manager=apt
elif command -v brew > /dev/null 2>&1; then
    manager=brew
elif [ "$system" = Darwin ] && { [ -x /opt/homebrew/bin/brew ] || [ -x /usr/local/bin/brew ]; }; then
    brew_at=$( [ -x /opt/homebrew/bin/brew ] && echo /opt/homebrew/bin/brew || echo /usr/local/bin/brew )
    echo "deps: Homebrew is installed, but not on your PATH: run eval \"\$($brew_at shellenv)\" (its installer says how to keep it there), then make deps again."
    exit 1
fi
if [ -z "$manager" ]; then
    echo "deps: missing: $names. make deps installs them through apt (Debian, Ubuntu, WSL2) or Homebrew (macOS), and this machine has neither: install them with its own package manager (Criterion's README lists packages for Fedora, Arch and others), then run make check."
    exit 1
fi

if [ "$manager" = brew ]; then
    if [ -n "$brew" ]; then
        echo "deps: installing$brew through Homebrew"
        # shellcheck disable=SC2086 # $brew is a list of formulae, a word each
        if ! brew install --quiet $brew; then
            echo "deps: brew could not install$brew (see its messages above)."
            lost
            exit 1
        fi
    fi
    if [ -n "$unbrewed" ]; then
        echo "deps: $unbrewed: make deps knows only Debian's package for it: install it by hand."
        exit 1
    fi
    installed
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo > /dev/null 2>&1; then
        sudo=sudo
    else
        echo "deps: installing$apt needs root. Ask an administrator to run:"
        echo "      apt-get install$apt"
        exit 1
    fi
fi
echo "deps: installing$apt"
# shellcheck disable=SC2086 # $apt is a list of package names, a word each
if ! { $sudo apt-get update -qq &&
       $sudo env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -qq --no-install-recommends $apt > /dev/null; }; then
    echo "deps: apt-get could not install$apt (see its messages above)."
    lost
    exit 1
fi
installed
