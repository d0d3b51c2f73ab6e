#!/usr/bin/env bash
# deps-test.sh: make deps (tools/deps.sh) on the machines it meets, each
# made of stubs on an otherwise empty PATH: macOS with Homebrew, macOS
# without it, a Linux with neither apt nor Homebrew, Debian with apt,
# with and without a GPU. What it would install and what it says are
# checked; nothing is installed. A second or so.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "deps-test: $*"; status=1; }

# machine SYSTEM MANAGER [GPU]: a fresh stub PATH in $tmp/bin: uname says
# SYSTEM; MANAGER (brew, apt-get or none) logs its command line to
# $tmp/log and "installs" pkg-config, pandoc and gnuplot as stubs;
# nvidia-smi lists a GPU if GPU is given.
machine() {
    rm -rf "${tmp:?}/bin" "$tmp/log" && mkdir "$tmp/bin"
    for cmd in grep head id env; do ln -s "$(command -v "$cmd")" "$tmp/bin/$cmd"; done
    printf '#!/bin/sh\necho %s\n' "$1" > "$tmp/bin/uname"
    if [ "$2" != none ]; then
        cat > "$tmp/bin/$2" << STUB
#!/bin/sh
echo "$2 \$*" >> "$tmp/log"
case "\$*" in *install*) ;; *) exit 0 ;; esac
printf '#!/bin/sh\n[ "\$1" != --modversion ] || echo 2.4.1\n' > "$tmp/bin/pkg-config"
printf '#!/bin/sh\necho pandoc 3.1\n' > "$tmp/bin/pandoc"
printf '#!/bin/sh\necho gnuplot 5.4\n' > "$tmp/bin/gnuplot"
/bin/chmod +x "$tmp/bin/pkg-config" "$tmp/bin/pandoc" "$tmp/bin/gnuplot"
STUB
    fi
    [ -z "${3:-}" ] || printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-0)"\n' > "$tmp/bin/nvidia-smi"
    chmod +x "$tmp/bin"/*
}
# deps ARGS...: make deps's script on that machine, as the user (not
# root: Homebrew refuses root, apt then goes through sudo, stubbed too)
deps() { PATH=$tmp/bin /bin/sh "$root/tools/deps.sh" /nowhere/nvcc "$@" > "$tmp/out" 2>&1; }
# says TEXT WHAT: the output holds TEXT
says() { grep -qF -- "$1" "$tmp/out" || { fail "$2: does not say \"$1\""; sed 's/^/    /' "$tmp/out"; }; }

machine Darwin brew
deps; code=$?
[ $code -eq 0 ] || fail "macOS with Homebrew: exit $code"
grep -qx 'brew install --quiet pkg-config criterion pandoc gnuplot' "$tmp/log" 2> /dev/null ||
    fail "macOS with Homebrew: brew was not asked for pkg-config criterion pandoc gnuplot: $(cat "$tmp/log" 2> /dev/null)"
says "macOS has none, and the labs run on the CPU emulation (EMU=1)" "macOS"
says "deps: done: Criterion 2.4.1, pandoc 3.1, gnuplot 5.4" "macOS with Homebrew"
grep -qi 'install it\|apt' "$tmp/out" && fail "macOS: speaks of apt or of installing CUDA: $(cat "$tmp/out")"

machine Darwin brew
deps shellcheck nosuchd=nosuch-server; code=$?
[ $code -ne 0 ] || fail "macOS with Homebrew and a Debian-only TOOL: exit 0"
says "deps: nosuchd: make deps knows only Debian's package for it: install it by hand." "macOS, a TOOL named for Debian"
grep -q 'brew install --quiet.* shellcheck$' "$tmp/log" || fail "macOS: shellcheck was not asked of brew: $(cat "$tmp/log")"

for system in Darwin Linux; do
    machine $system none
    deps; code=$?
    [ $code -ne 0 ] || fail "$system with neither apt nor Homebrew: exit 0"
    says "deps: missing: pkg-config, Criterion, pandoc, gnuplot. make deps installs them through apt (Debian, Ubuntu, WSL2) or Homebrew (macOS), and this machine has neither" "$system without a package manager"
    [ "$(grep -vc '^deps: no CUDA' "$tmp/out")" = 1 ] ||
        { fail "$system without a package manager: more than one line:"; cat "$tmp/out"; }
done

machine Linux apt-get
printf '#!/bin/sh\n"$@"\n' > "$tmp/bin/sudo" && chmod +x "$tmp/bin/sudo"
deps; code=$?
[ $code -eq 0 ] || fail "Debian: exit $code"
grep -q 'apt-get install -y -qq --no-install-recommends pkg-config libcriterion-dev pandoc gnuplot-nox$' "$tmp/log" ||
    fail "Debian: apt-get was not asked for its four packages: $(cat "$tmp/log")"
says "none is needed without an NVIDIA GPU: the labs run on the CPU emulation (EMU=1)" "Debian without a GPU"

machine Linux apt-get gpu
printf '#!/bin/sh\n"$@"\n' > "$tmp/bin/sudo" && chmod +x "$tmp/bin/sudo"
deps
says "deps: no CUDA toolkit at /nowhere/nvcc. Install it" "Debian with a GPU"
deps
says "deps: Criterion 2.4.1, pandoc 3.1 and gnuplot 5.4 are installed" "Debian, all installed"
# apt fails on an instructors' tool alone: what is lost is that tool, not the tests
printf '#!/bin/sh\ncase "$*" in *install*) exit 100 ;; esac\n' > "$tmp/bin/apt-get"
deps nosuchd=nosuch-server; code=$?
[ $code -ne 0 ] || fail "Debian, apt failing: exit 0"
says "Without nosuchd the make target that asked for them cannot run." "Debian, apt failing on a TOOL"
grep -q 'Criterion\|pandoc' "$tmp/out" && fail "Debian, apt failing on a TOOL: speaks of what is installed: $(cat "$tmp/out")"

[ $status -eq 0 ] && echo "deps-test: make deps on macOS with and without Homebrew, Linux without apt, Debian with and without a GPU: as expected"
exit $status
