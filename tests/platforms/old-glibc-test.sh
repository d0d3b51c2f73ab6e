#!/usr/bin/env bash
# old-glibc-test.sh: the workbook on the oldest Linux it supports: Debian 11
# (bullseye: glibc 2.31, as Ubuntu 20.04 has), in a fresh root made by
# debootstrap. Its gcc 10 cannot build the emulation (it cannot tell a
# volatile access): make test must say so in one line. With its clang 11
# (Ubuntu 20.04 has clang 12), bullseye's Criterion (2.3) and no CUDA: the
# emulation's own tests, and make test on map's and reduce's solutions
# (every stage passes) and map's skeleton (stage 1 fails). Needs root, debootstrap (make deps-devcontainer) and Debian's
# mirror (MIRROR=); KEEP=1 keeps the root. Not in CI: about 4 minutes.
set -u
cd "$(dirname "$0")/../.." || exit 1
say() { echo "old-glibc-test: $*"; }
# shellcheck source=tests/platforms/debian-root.sh
. tests/platforms/debian-root.sh
debian_root old-glibc || exit 1

started=$SECONDS
debootstrap --variant=minbase --include=gcc,g++,clang,make,pkg-config,libcriterion-dev \
    bullseye "$sys" "$mirror" > "$tmp/debootstrap.log" 2>&1 ||
    { tail -n 20 "$tmp/debootstrap.log"; say "debootstrap failed"; exit 1; }
if ! { mount_in proc /proc -t proc && mount_in /dev /dev --bind; }; then
    say "could not mount /proc and /dev in the root"; exit 1
fi
mkdir -p "$sys/workbook" && git archive HEAD | tar -x -C "$sys/workbook"
say "Debian 11 root in $((SECONDS - started)) s: $(in_root ldd --version | head -n 1), $(in_root gcc --version | head -n 1), $(in_root clang --version | head -n 1), Criterion $(in_root pkg-config --modversion criterion)"
status=0
run() { # NAME COMMAND: COMMAND in the root's checkout, its output in $tmp/NAME.log
    in_root /bin/bash -c "cd /workbook && $2" > "$tmp/$1.log" 2>&1
}
if run gcc "make -s test EMU=1 SOLUTION=1 LAB=map"; then
    say "gcc 10 built the emulation, which cannot tell its volatile accesses"; status=1
elif [ "$(wc -l < "$tmp/gcc.log")" -eq 1 ] && grep -q 'needs gcc 11 or newer' "$tmp/gcc.log"; then
    say "with gcc 10, make test says in one line: $(sed 's/^[^ ]* \*\*\* //' "$tmp/gcc.log")"
else
    cat "$tmp/gcc.log"; say "with gcc 10, make test does not say in one line what it needs"; status=1
fi
clang="CC=clang CXX=clang++"
if run emutest "make -s EMU=1 $clang build/emu/emutest && build/emu/emutest --short-filename"; then
    say "the emulation's own tests: $(tail -n 1 "$tmp/emutest.log" | sed 's/^\[====\] //')"
else
    tail -n 20 "$tmp/emutest.log"; say "the emulation's own tests fail"; status=1
fi
for lab in map reduce; do
    if run "$lab" "make -s test EMU=1 SOLUTION=1 LAB=$lab SEED=5 $clang"; then
        say "$lab's solution: $(grep -c '^  stage .* passed$' "$tmp/$lab.log") stages pass"
    else
        tail -n 20 "$tmp/$lab.log"; say "$lab's solution fails"; status=1
    fi
done
if run skeleton "make -s test EMU=1 LAB=map SEED=5 $clang"; then
    say "map's skeleton passed"; status=1
elif grep -q '^  stage 1 .* passed   <- start here' "$tmp/skeleton.log"; then
    say "map's skeleton fails, stage by stage, as it should"
else
    tail -n 20 "$tmp/skeleton.log"; say "map's skeleton: no stage summary"; status=1
fi
say "$( [ $status = 0 ] && echo passed || echo FAILED ) in $((SECONDS - started)) s"
exit $status
