#!/usr/bin/env bash
# bench-loop.sh [--check | --arm64]: how long the student's loop takes on
# this machine, under the CPU emulation, after the build: a stage that
# passes, a stage still a TODO, a whole lab. Each figure is the median of 5
# runs (wall seconds, build excluded: one untimed run first). With --check,
# one `make check` from a fresh clone of HEAD too, the way CI runs it. With
# --arm64, the arm64 build under qemu-user (tests/platforms/arm64.sh), 3
# runs and no scan row: a proxy for an arm64 laptop, which runs it natively.
set -u
cd "$(dirname "$0")/.." || exit 1
runs=5 platform=() what="EMU=1"
if [ "${1:-}" = --arm64 ]; then
    # shellcheck source=tests/platforms/arm64.sh
    . tests/platforms/arm64.sh
    arm64_start || exit 1
    trap arm64_stop EXIT
    runs=3 platform=("${arm64_make[@]}")
    what="EMU=1, built for arm64 by $(aarch64-linux-gnu-gcc -dumpfullversion) and run by $(qemu-aarch64 --version | head -n 1)"
fi

# median of the wall seconds of `runs` runs of a command (its output dropped)
median_seconds() {
    local t=()
    "$@" "${platform[@]}" > /dev/null 2>&1 # the build, and warm caches
    for _ in $(seq $runs); do
        local start end
        start=$(date +%s.%N)
        "$@" "${platform[@]}" > /dev/null 2>&1
        end=$(date +%s.%N)
        t+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}

row() {
    printf '%-58s %6.1f s\n' "$1" "$(median_seconds "${@:2}")"
}

echo "The student's loop under $what: median of $runs runs, wall seconds, after the build"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "commit:  $(git rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
row "make test LAB=reduce STAGE=3 EMU=1 SOLUTION=1 (passes)" \
    make test LAB=reduce STAGE=3 EMU=1 SOLUTION=1 SEED=1
row "make test LAB=reduce STAGE=3 EMU=1 (the skeleton: fails)" \
    make test LAB=reduce STAGE=3 EMU=1 SEED=1
row "make test LAB=reduce EMU=1 SOLUTION=1 (all 8 stages pass)" \
    make test LAB=reduce EMU=1 SOLUTION=1 SEED=1
[ -n "${platform[*]}" ] || row "make test LAB=scan EMU=1 SOLUTION=1 (three labs pass)" \
    make test LAB=scan EMU=1 SOLUTION=1 SEED=1

if [ "${1:-}" = --check ]; then
    clone=$(mktemp -d)
    git clone -q . "$clone"
    start=$(date +%s)
    (cd "$clone" && make check > check.log 2>&1)
    status=$?
    printf '%-58s %6d s (exit %d)\n' "make check, fresh clone, builds included" \
        "$(( $(date +%s) - start ))" "$status"
    rm -rf "$clone"
fi
