#!/usr/bin/env bash
# support-matrix.sh [--check]: common/emu/SUPPORT.md, every CUDA construct
# (intrinsic, built-in variable, qualifier, type, API call, CUB or
# cooperative-groups call, launch) that the kernels of the course use
# (solutions/*/*.cu, spec/*/*.cu and the headers they include, spec/*/*.cuh
# and common/*.cuh), each with what tests the emulation of it: the
# differential run (authoring/differential/gen.c emits it: run.sh compares
# it with a GPU), the emulation's own tests (tests/emu/*.cu that use it),
# and the labs whose tests run it. --check writes nothing and fails when
# the file is not what the sources make: a construct new to a solution, or
# one no longer used.
set -u
export LC_ALL=C # one order of names on every machine
cd "$(dirname "$0")/.." || exit 1
matrix=common/emu/SUPPORT.md
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# FILE: its CUDA constructs, one a line, comments and strings aside.
constructs() {
    local text
    text=$(g++ -fpreprocessed -dD -E -P -x c++ "$1" 2> /dev/null | sed 's/"\([^"\\]\|\\.\)*"/""/g')
    # a file's own name for a namespace of CUDA's: namespace cg = cooperative_groups;
    local alias
    alias=$(sed -n 's/.*namespace[ \t]*\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*=[ \t]*\(::\)\?cooperative_groups.*/\1/p' <<< "$text")
    [ -z "$alias" ] || text=${text//$alias::/cooperative_groups::}
    {
        grep -oE '\b__[a-z][a-z0-9_]*\b|\batomic[A-Z][A-Za-z]*\b|\bcuda[A-Z][A-Za-z0-9]*\b|\bmake_[a-z]+[1-4]\b' <<< "$text" |
            grep -vxE '__(attribute|builtin_[a-z0-9_]*|func|typeof|asm|inline|extension)__?'
        grep -oE '\b(u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]\b|\bdim3\b' <<< "$text"
        grep -oE '\b(threadIdx|blockIdx|blockDim|gridDim|warpSize)\b|\bvolatile\b' <<< "$text"
        grep -oE '\b(cub|cooperative_groups)(::[A-Za-z_][A-Za-z0-9_]*)+' <<< "$text"
        grep -oE '\b(min|max)[ \t]*\(' <<< "$text" | tr -d ' \t('
        grep -q '<<<' <<< "$text" && echo "kernel launch"
        grep -qE 'extern[ \t]+__shared__' <<< "$text" && echo "extern __shared__"
    } | sort -u
}

kind() {
    case $1 in
        __global__ | __device__ | __host__ | __shared__ | __constant__ | __restrict__ | __forceinline__ | \
            __noinline__ | __launch_bounds__ | __maxnreg__ | __align__ | volatile | "extern __shared__")
            echo qualifier ;;
        threadIdx | blockIdx | blockDim | gridDim | warpSize) echo "built-in variable" ;;
        cuda*) echo "API" ;;
        cub::*) echo CUB ;;
        cooperative_groups::*) echo "cooperative groups" ;;
        "kernel launch") echo "launch" ;;
        dim3 | *[1-4]) echo type ;;
        *) echo "device function" ;;
    esac
}

# Who uses what: a lab's own files by the lab's name, a shared header by its path.
for f in solutions/*/*.cu spec/*/*.cu spec/*/*.cuh common/*.cuh; do
    [ -e "$f" ] || continue
    case $f in
        solutions/*/* | spec/*/*_lab.c | spec/*/*_library.cu) owner=$(basename "$(dirname "$f")") ;;
        *) owner=$f ;;
    esac
    constructs "$f" | sed "s|\$|\t$owner|"
done | sort -u > "$tmp/used"
for f in tests/emu/*.cu; do constructs "$f" | sed "s|\$|\t${f#tests/emu/}|"; done | sort -u > "$tmp/tests"
cc -std=gnu11 -O1 -o "$tmp/gen" authoring/differential/gen.c && "$tmp/gen" --vocabulary > "$tmp/vocabulary" || exit 1

{
    echo "<!-- Written by authoring/support-matrix.sh: run it again rather than edit (make check fails when stale). -->"
    echo "# What the emulation provides of what the course uses, and what tests it"
    echo
    echo "Every CUDA construct that the kernels of the course use (solutions/, spec/, and the"
    echo "headers they include), with what proves the emulation runs it as a GPU does:"
    echo
    echo "- **differential**: authoring/differential/gen.c emits it in random race-free kernels,"
    echo "  whose every output word run.sh compares with a GPU's (results/H200/differential.md)"
    echo "  and in which the emulation must report nothing (results/emulation/differential.md);"
    echo "- **tests/emu**: the emulation's own tests that use it (make check runs them);"
    echo "- **labs**: the labs whose tests run it, under the emulation and on a GPU."
    echo
    echo "A construct the emulation does not provide stops the build with a line"
    echo "\`emulation: not provided: X (FILE:LINE)\` (common/emu/not-provided.awk), never a"
    echo "silent wrong answer."
    echo
    echo "| construct | kind | differential | tests/emu | labs |"
    echo "|---|---|---|---|---|"
    cut -f1 "$tmp/used" | sort -u | while IFS= read -r c; do
        diff_mark=$(grep -qxF -- "$c" "$tmp/vocabulary" && echo yes)
        tests=$(awk -F'\t' -v c="$c" '$1 == c { printf "%s%s", n++ ? ", " : "", $2 }' "$tmp/tests")
        labs=$(awk -F'\t' -v c="$c" '$1 == c { printf "%s%s", n++ ? ", " : "", $2 }' "$tmp/used")
        printf '| %s | %s | %s | %s | %s |\n' "\`$c\`" "$(kind "$c")" "$diff_mark" "$tests" "$labs"
    done
} > "$tmp/matrix"

if [ "${1:-}" = --check ]; then
    if ! diff -q "$tmp/matrix" "$matrix" > /dev/null 2>&1; then
        echo "check: $matrix is not what the sources make (run authoring/support-matrix.sh, and see that"
        echo "       each new construct has a test: gen.c's vocabulary or tests/emu):"
        diff "$matrix" "$tmp/matrix" 2>&1 | grep '^[<>] |' | sed 's/^</  no longer:/; s/^>/  now:      /' | head -n 20
        exit 1
    fi
    untested=$(awk -F'|' 'NR > 2 && $4 ~ /^ *$/ && $5 ~ /^ *$/' "$matrix" | grep -c '^| `')
    echo "check: $matrix lists the $(grep -c '^| `' "$matrix") CUDA constructs the course uses" \
        "($untested tested by the labs alone)"
else
    mv "$tmp/matrix" "$matrix" && chmod 644 "$matrix"
fi
