#!/usr/bin/env bash
# platforms-test.sh [SEED]: the same verdicts on other platforms, and a
# clone with Windows line ends that is not one. Under the CPU emulation,
# built for each platform and with gcc on this machine, at one seed: the
# emulation's own tests must pass, and make test must print the same lines
# for every lab's solution and skeleton (each stage's summary, and the
# first report of each failing stage).
#
# PLATFORMS="clang arm64": clang (a Mac's compiler; the default), clang-16
# (that version, its clang++-16 beside it), arm64 (gcc's cross compiler,
# each binary run under qemu-user: make deps-arm64 installs them). LABS="map
# reduce" compares those labs only; LARGEST_N=5000 leaves out, on every
# side, each test of more elements (WORKBOOK_LARGEST_N): what CI affords
# under qemu; CRLF_BUILD=0 leaves out the build in the Windows clone.
# MUTANTS="map reduce": those labs' planted mistakes (tests/mutants), at
# full size, must get the same verdicts too, and first reports that differ
# in more than where they tripped are shown (under qemu, seconds to minutes
# a mistake). COUNTS=1: each solution's
# counts table (make run EMU=1, its times left out) beside gcc's, the rows
# that differ printed: a report, not a verdict (the host compiler may make
# one load of a line's two, README.md says). Build folders of their own
# (build/<platform>), so gcc's build is not touched.
set -u
cd "$(dirname "$0")/../.." || exit 1
seed=${1:-5}
status=0
work=$(mktemp -d "${TMPDIR:-/tmp}/platforms.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# A clone by Git for Windows converts line ends to CRLF (core.autocrlf):
# .gitattributes must keep every text file LF, or WSL stops at bash\r
if [ -d .git ]; then
    crlf=$work/crlf
    git clone -q -c core.autocrlf=true . "$crlf" &&
        found=$(cd "$crlf" && git ls-files -z | xargs -0 grep -Il $'\r' -- 2> /dev/null | head -n 3)
    if [ -n "${found:-}" ]; then
        echo "platforms-test: a clone with core.autocrlf=true has CRLF lines: $found"; status=1
    elif [ "${CRLF_BUILD:-1}" = 1 ] && ! (cd "$crlf" && make -s test EMU=1 LAB=map SOLUTION=1 NVCC_CHECK= SEED="$seed") \
        > "$work/crlf.log" 2>&1; then
        tail -n 20 "$work/crlf.log"
        echo "platforms-test: a clone with core.autocrlf=true does not build or pass map"; status=1
    else
        echo "platforms-test: a clone with core.autocrlf=true (Git for Windows) has LF lines only$([ "${CRLF_BUILD:-1}" = 1 ] && echo ", and builds and passes map")"
    fi
    rm -rf "$crlf"
fi

# What make test prints, less the build's own lines and its folder's name
printed() { grep -v '^compiling ' "$1" | sed -e 's|build/[^/]*/|BUILD/|g'; }
# a report less which block, thread and element tripped first
tripped() { sed -E 's/block \([0-9, ]+\)/block (#)/g; s/thread \([0-9, ]+\)/thread (#)/g; s/thread [0-9]+/thread #/g; s/\[[0-9]+\]/[#]/g'; }
# make run's stage rows, less their times (the column with four decimals)
counts() { grep -E '^[0-9a-z]+ +[a-z]' | grep -v '^copy\|^lib' | sed -E 's/ +[0-9]+\.[0-9]{4} +/ /'; }
labs=${LABS:+LAB="$LABS"}
export WORKBOOK_LARGEST_N=${LARGEST_N:-}
subset="${LABS:+ of $LABS}${LARGEST_N:+, tests of n <= $LARGEST_N}"
# make_test TREE LOG [MAKE ARGS...]: make test on the solutions or the skeletons
make_test() {
    local solution
    solution=$([ "$1" = solutions ] && echo SOLUTION=1)
    # shellcheck disable=SC2086 # SOLUTION=1, or nothing; LAB=..., or nothing
    make -s test EMU=1 NVCC_CHECK= SEED="$seed" $solution ${labs:+"$labs"} "${@:3}" > "$2" 2>&1
}
for tree in solutions skeletons; do
    make_test $tree "$work/gcc-$tree.log"
    if [ "$(grep -c '^  stage ' "$work/gcc-$tree.log")" -eq 0 ]; then
        echo "platforms-test: $tree: gcc's make test printed no stage"; exit 1
    fi
done
# mutants NAME [MAKE ARGS...]: the catalogue of $MUTANTS planted, its table
# in $work/NAME-mutants.txt, each mistake's first report in $work/NAME-mutants/
mutants() {
    local name=$1
    shift
    rm -rf build/mutants
    # shellcheck disable=SC2086 # a list of labs
    env -u WORKBOOK_LARGEST_N SEED="$seed" tests/mutants/mutants.sh $MUTANTS -- "$@" > "$work/$name-mutants.txt" 2>&1
    mkdir -p "$work/$name-mutants" && mv build/mutants/*.first "$work/$name-mutants/" 2> /dev/null
}
[ -z "${MUTANTS:-}" ] || mutants gcc

# compare PLATFORM: the emulation's own tests, then make test on each tree,
# built for PLATFORM (in a shell of its own: arm64 caps its memory)
compare() (
    local platform=$1 other status=0 build=build/$1
    say() { echo "platforms-test: $platform: $*"; }
    case $platform in
    clang*)
        local cc=$platform cxx=${platform/clang/clang++}
        if ! command -v "$cxx" > /dev/null || ! command -v "$cc" > /dev/null; then
            say "$cxx is not installed (apt install clang): nothing compared"; return 1
        fi
        other=(CC="$cc" CXX="$cxx" BUILD="$build")
        ;;
    arm64)
        # shellcheck source=tests/platforms/arm64.sh
        . tests/platforms/arm64.sh
        arm64_start || return 1
        trap arm64_stop EXIT
        other=("${arm64_make[@]}")
        ;;
    *)
        say "not a platform this test knows: clang (or clang-16, ...) and arm64"; return 1
        ;;
    esac
    if make -s "$build/emutest" EMU=1 "${other[@]}" > "$work/$platform-emutest-build.log" 2>&1 &&
        "$build/emutest" --short-filename > "$work/$platform-emutest.log" 2>&1; then
        say "the emulation's own tests: $(tail -n 1 "$work/$platform-emutest.log" | sed 's/^\[====\] //')"
    else
        tail -n 20 "$work/$platform-emutest-build.log" "$work/$platform-emutest.log"
        say "the emulation's own tests fail"
        status=1
    fi
    for tree in solutions skeletons; do
        local gcc=$work/gcc-$tree.log log=$work/$platform-$tree.log start=$SECONDS
        make_test $tree "$log" "${other[@]}"
        if ! diff <(printed "$gcc") <(printed "$log") > "$work/$platform-$tree.diff"; then
            say "$tree: make test differs from gcc's at SEED=$seed:"
            head -n 30 "$work/$platform-$tree.diff"
            status=1
        else
            say "$tree: the same $(printed "$gcc" | wc -l) lines as gcc's at SEED=$seed" \
                "($(grep -c '^  stage ' "$gcc") stages$subset; $((SECONDS - start)) s)"
        fi
    done
    if [ "${COUNTS:-0}" = 1 ]; then
        local lab differ=""
        for lab in ${LABS:-$(sed -n 's/^COURSE *:= *//p' Makefile)}; do
            make -s run EMU=1 NVCC_CHECK= SOLUTION=1 LAB="$lab" SEED="$seed" "${other[@]}" 2>&1 | counts > "$work/$platform-$lab.counts"
            [ -s "$work/gcc-$lab.counts" ] || # gcc's once, for every platform
                make -s run EMU=1 NVCC_CHECK= SOLUTION=1 LAB="$lab" SEED="$seed" 2>&1 | counts > "$work/gcc-$lab.counts"
            if ! diff "$work/gcc-$lab.counts" "$work/$platform-$lab.counts" > "$work/$platform-$lab.counts.diff"; then
                differ+=" $lab"
                say "$lab's counts table, rows that differ (gcc's, then $platform's):"
                awk -v p="$platform:" '/^[<>] / { printf "  %-7s %s\n", /^</ ? "gcc:" : p, substr($0, 3) }' \
                    "$work/$platform-$lab.counts.diff"
            fi
        done
        say "counts tables: ${differ:+differ in$differ; the others }the same as gcc's"
    fi
    if [ -n "${MUTANTS:-}" ]; then
        # The verdicts must agree: each one says whether the first report
        # names the mistake's cause (its ? lines, which allow for timing).
        # The first reports themselves are shown where they differ in more
        # than which block, thread or element tripped first, which timing
        # decides on any platform: a report, as the compilers word their
        # warnings apart (results/emulation/platforms.txt, section 4).
        local start=$SECONDS first firsts others=0
        mutants "$platform" "${other[@]}"
        firsts=("$work"/gcc-mutants/*.first)
        if ! diff "$work/gcc-mutants.txt" "$work/$platform-mutants.txt" > "$work/$platform-mutants.diff"; then
            say "the planted mistakes of $MUTANTS: verdicts differ from gcc's at SEED=$seed:"
            head -n 30 "$work/$platform-mutants.diff"
            status=1
        fi
        for first in "${firsts[@]}"; do
            if ! diff <(printed "$first" | tripped) <(printed "$work/$platform-mutants/${first##*/}" | tripped) \
                > "$work/$platform-first.diff"; then
                say "planted mistake ${first##*/}: its first report, beside gcc's (${first##*/} in build/mutants):"
                head -n 20 "$work/$platform-first.diff"
                others=$((others + 1))
            fi
        done
        [ $status != 0 ] || say "the planted mistakes of $MUTANTS: the same verdicts as gcc's" \
            "(${#firsts[@]} blocks; $(tail -n 3 "$work/gcc-mutants.txt" | head -n 1); first reports that differ" \
            "in more than where they tripped: $others; $((SECONDS - start)) s)"
    fi
    return $status
)
for platform in ${PLATFORMS:-clang}; do
    compare "$platform" || status=1
done
exit $status
