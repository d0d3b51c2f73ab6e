#!/usr/bin/env bash
# platforms-test.sh [SEED]: the same verdicts on another platform, and a
# clone with Windows line ends that is not one. Under the CPU emulation,
# built for PLATFORM and with gcc on this machine, at one seed: the
# emulation's own tests must pass, and make test must print the same lines
# for every lab's solution and skeleton (each stage's summary, and the
# first report of each failing stage).
#
# PLATFORM=clang (a Mac's compiler; the default), or clang-16 (that
# version, its clang++-16 beside it), or arm64: gcc's cross compiler, each
# binary run under qemu-user (make deps-arm64 installs them). LABS="map
# reduce" compares those labs only; LARGEST_N=50000 leaves out, on both
# sides, every test of more elements (WORKBOOK_LARGEST_N): what CI affords
# under qemu. Build folders of their own (build/<platform>), so gcc's build
# is not touched.
set -u
cd "$(dirname "$0")/../.." || exit 1
seed=${1:-5}
platform=${PLATFORM:-clang}
status=0
say() { echo "platforms-test: $platform: $*"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/platforms.XXXXXX")
# shellcheck disable=SC2317 # run by the trap
cleanup() { # the logs (KEEP=1 keeps them), and qemu's registration if ours
    [ -n "${KEEP:-}" ] || rm -rf "$work"
    [ "$platform" != arm64 ] || arm64_stop
}
trap cleanup EXIT

# A clone by Git for Windows converts line ends to CRLF (core.autocrlf):
# .gitattributes must keep every text file LF, or WSL stops at bash\r
if [ -d .git ]; then
    crlf=$(mktemp -d "${TMPDIR:-/tmp}/crlf.XXXXXX")
    git clone -q -c core.autocrlf=true . "$crlf/clone" &&
        found=$(cd "$crlf/clone" && git ls-files -z | xargs -0 grep -Il $'\r' -- 2> /dev/null | head -n 3)
    if [ -n "${found:-}" ]; then
        echo "platforms-test: a clone with core.autocrlf=true has CRLF lines: $found"; status=1
    elif ! (cd "$crlf/clone" && make -s test EMU=1 LAB=map SOLUTION=1 NVCC_CHECK= SEED="$seed") \
        > "$crlf/map.log" 2>&1; then
        tail -n 20 "$crlf/map.log"
        echo "platforms-test: a clone with core.autocrlf=true does not build or pass map"; status=1
    else
        echo "platforms-test: a clone with core.autocrlf=true (Git for Windows) has LF lines only, and builds and passes map"
    fi
    rm -rf "$crlf"
fi

# What the other platform's make needs, and a word for what runs it
case $platform in
clang*)
    cc=$platform cxx=${platform/clang/clang++}
    if ! command -v "$cxx" > /dev/null || ! command -v "$cc" > /dev/null; then
        say "$cxx is not installed (apt install clang): nothing compared"; exit 1
    fi
    other=(CC="$cc" CXX="$cxx")
    ;;
arm64)
    # shellcheck source=tests/platforms/arm64.sh
    . tests/platforms/arm64.sh
    arm64_start || exit 1
    other=("${arm64_make[@]}")
    ;;
*)
    echo "platforms-test: PLATFORM=$platform: the platforms compared are clang (or clang-16, ...) and arm64"
    exit 1
    ;;
esac
build=build/$platform
[ "$platform" = arm64 ] || other+=(BUILD="$build")

if make -s "$build/emutest" EMU=1 "${other[@]}" > "$work/emutest-build.log" 2>&1 &&
    "$build/emutest" --short-filename > "$work/emutest.log" 2>&1; then
    say "the emulation's own tests: $(tail -n 1 "$work/emutest.log" | sed 's/^\[====\] //')"
else
    tail -n 20 "$work/emutest-build.log" "$work/emutest.log"
    say "the emulation's own tests fail"
    status=1
fi

# What make test prints, less the build's own lines and its folder's name
printed() { grep -v '^compiling ' "$1" | sed -e "s|$build/|BUILD/|g" -e 's|build/emu/|BUILD/|g'; }
labs=${LABS:+LAB="$LABS"}
export WORKBOOK_LARGEST_N=${LARGEST_N:-}
subset="${LABS:+ of $LABS}${LARGEST_N:+, tests of n <= $LARGEST_N}"
for tree in solutions skeletons; do
    solution=$([ $tree = solutions ] && echo SOLUTION=1)
    # shellcheck disable=SC2086 # SOLUTION=1, or nothing; LAB=..., or nothing
    make -s test EMU=1 SEED="$seed" $solution ${labs:+"$labs"} > "$work/gcc-$tree.log" 2>&1
    start=$SECONDS
    # shellcheck disable=SC2086
    make -s test EMU=1 SEED="$seed" $solution ${labs:+"$labs"} "${other[@]}" > "$work/other-$tree.log" 2>&1
    took=$((SECONDS - start))
    stages=$(grep -c '^  stage ' "$work/gcc-$tree.log")
    if [ "$stages" -eq 0 ]; then
        say "$tree: gcc's make test printed no stage"; status=1
    elif ! diff <(printed "$work/gcc-$tree.log") <(printed "$work/other-$tree.log") > "$work/$tree.diff"; then
        say "$tree: make test differs from gcc's at SEED=$seed:"
        head -n 30 "$work/$tree.diff"
        status=1
    else
        say "$tree: the same $(wc -l < "$work/gcc-$tree.log") lines as gcc's at SEED=$seed ($stages stages$subset; ${took} s)"
    fi
done
exit $status
