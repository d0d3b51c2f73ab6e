#!/usr/bin/env bash
# darwin-compile.sh [LAB]: the emulation and the harness built for a Mac,
# without one: arm64 and x86-64 macOS, by zig's clang with Apple's libc
# headers and libSystem stubs (pip install ziglang), through the Makefile's
# own rules and flags, in build/darwin-<arch>. Compiled: every file of
# common/emu (the platform layer's Darwin side among them), the harness's C
# files, the emulation's own tests; linked: LAB's `make run` program (map by
# default) into a Mach-O executable. Not linked: anything with Criterion,
# which has no macOS build here. Nothing runs: that needs a Mac.
# MACOS_ARCHS=aarch64 builds for Apple Silicon alone (what CI affords).
set -u
cd "$(dirname "$0")/../.." || exit 1
lab=${1:-map}
tree=$([ -d "solutions/$lab" ] && echo solutions || echo labs)
if ! python3 -m ziglang version > /dev/null 2>&1; then
    echo "darwin-compile: skipped: zig is not installed (pip install ziglang): nothing built for macOS"
    exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/darwin.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Criterion's headers alone, without the rest of this system's /usr/include
mkdir -p "$work/include"
criterion=$(pkg-config --variable=includedir criterion 2> /dev/null)/criterion
[ -d "$criterion" ] && ln -s "$criterion" "$work/include/criterion"

emu=$(ls common/emu/*.cpp)
harness="common/lab.c common/diagnose.c common/report.c common/host.c common/workbook.cu common/verify.cu common/gpu.cu common/probe.c common/driver.c common/run_table.c common/bench_csv.c common/judge.c common/seal.c"
criterion_files="common/testing.c common/test_main.c common/test_report.c $(ls tests/emu/*.c tests/emu/*.cu)"
[ -d "$criterion" ] || criterion_files=""

status=0
for arch in ${MACOS_ARCHS:-aarch64 x86_64}; do
    target=$arch-macos
    # (zig's --version, which the Makefile asks, leaves an a.o behind)
    for tool in cc c++; do
        printf '#!/bin/sh\n[ "$*" = --version ] && cd "%s"\nexec python3 -m ziglang %s -target %s "$@"\n' \
            "$work" "$tool" "$target" > "$work/$tool-$target"
        chmod +x "$work/$tool-$target"
    done
    build=build/darwin-$arch
    rm -rf "$build"
    # each source's object, as the Makefile names it
    objects=()
    for f in $emu $harness $criterion_files; do
        case $f in
        common/driver.c | common/run_table.c | common/bench_csv.c | common/judge.c | common/seal.c | common/test_main.c | common/test_report.c) objects+=("$build/$tree/$lab/$(basename "${f%.*}").o") ;;
        *) objects+=("$build/${f%.*}.o") ;;
        esac
    done
    program=$build/$tree/$lab/run
    # the rewriter runs here, so it is this machine's own program
    make -s EMU=1 BUILD="$build" "$build/rewrite" > "$work/$arch.log" 2>&1
    make -k -s EMU=1 BUILD="$build" CC="$work/cc-$target" CXX="$work/c++-$target" \
        CRITERION_CFLAGS="-I$work/include" "${objects[@]}" "$program" >> "$work/$arch.log" 2>&1
    failed=() compiled=0
    for o in "${objects[@]}"; do
        if [ -f "$o" ]; then compiled=$((compiled + 1)); else failed+=("$o"); fi
    done
    linked="$program not linked"
    [ -f "$program" ] && linked="$program linked: $({ file -b "$program" 2> /dev/null || echo Mach-O; } | cut -d, -f1)"
    if [ ${#failed[@]} -eq 0 ] && [ -f "$program" ] && ! grep -q 'warning' "$work/$arch.log"; then
        echo "darwin-compile: $target: $compiled files compiled (common/emu, the harness, the emulation's own tests); $linked"
    else
        status=1
        echo "darwin-compile: $target: $compiled of ${#objects[@]} files compiled${failed[*]:+ (not ${failed[*]#$build/})}; $linked"
        grep -v '^compiling ' "$work/$arch.log" | head -n 30
    fi
done
[ -d "$criterion" ] || echo "darwin-compile: Criterion's headers are not here (make deps): the files that use them were left out"
echo "darwin-compile: not linked: the emulation's own tests and the labs' tests (Criterion has no macOS build here); nothing run (no Mac)"
exit $status
