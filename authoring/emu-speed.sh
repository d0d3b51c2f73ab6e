#!/usr/bin/env bash
# emu-speed.sh [-n RUNS] [--vs DIR] [LAB...]: how long a student waits for
# `make test LAB=<lab> STAGE=<n> EMU=1` on a stage that passes, for every
# stage of every lab (or of the labs named), after the build: the median of
# RUNS runs (3), wall seconds and CPU seconds (user and system, the tests'
# processes included), as the rows of a markdown table (results/emulation/speed.md
# holds one). The target is 10 s of wall time a stage on 2 cores. On a
# machine busy with other work the wall seconds grow and the CPU seconds
# hardly move: on an idle one, the wall time is about half the CPU time.
#
# The solutions are built first and not timed. Run k of every stage uses
# SEED=k, so two runs of the script time the same inputs. With --vs DIR,
# DIR (another checkout, such as the commit before a change) is built and
# timed too, its runs alternating with this one's, so that a machine whose
# speed drifts moves both alike; the table then has both medians and the
# median of the runs' ratios of wall time.
set -u
cd "$(dirname "$0")/.." || exit 1
runs=3 other=
while [ $# -gt 0 ]; do
    case $1 in
    -n) runs=$2; shift 2 ;;
    --vs) other=$(cd "$2" && pwd) || exit 1; shift 2 ;;
    *) break ;;
    esac
done
labs=("$@")
[ ${#labs[@]} -gt 0 ] || read -r -a labs <<< "$(sed -n 's/^COURSE := //p' Makefile)"

build() { make -C "$1" build EMU=1 SOLUTION=1 LAB="$2" > /dev/null 2>&1; }

# "wall cpu" seconds of one make test, its output dropped
seconds() {
    local TIMEFORMAT='%R %U %S' t
    t=$({ time make -C "$1" test LAB="$2" STAGE="$3" EMU=1 SOLUTION=1 SEED="$4" > /dev/null 2>&1; } 2>&1)
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' <<< "$t"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# the median of column $1 of the lines given
column() { printf '%s\n' "${@:2}" | awk -v c="$1" '{ print $c }' | median; }

echo "make test LAB=<lab> STAGE=<n> EMU=1 SOLUTION=1 SEED=1..$runs, after the build: medians of $runs runs"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "commit:  $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with changes)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
[ -z "$other" ] || echo "against: $other, commit $(git -C "$other" rev-parse --short HEAD 2> /dev/null || echo '?')"
echo
if [ -z "$other" ]; then
    echo "| lab | stage | wall s | CPU s |"
    echo "|---|---|---:|---:|"
else
    echo "| lab | stage | before: wall s | CPU s | after: wall s | CPU s | wall after / before |"
    echo "|---|---|---:|---:|---:|---:|---:|"
fi
for lab in "${labs[@]}"; do
    build . "$lab" || { echo "| $lab | | the build failed |"; continue; }
    [ -z "$other" ] || build "$other" "$lab" || { echo "| $lab | | the build of $other failed |"; continue; }
    stages=$(build/emu/solutions/"$lab"/run list=stages | cut -f1)
    for stage in $stages; do
        here=() there=() ratio=()
        for seed in $(seq "$runs"); do
            here+=("$(seconds . "$lab" "$stage" "$seed")")
            if [ -n "$other" ]; then
                there+=("$(seconds "$other" "$lab" "$stage" "$seed")")
                ratio+=("$(awk -v a="${here[-1]%% *}" -v b="${there[-1]%% *}" 'BEGIN { printf "%.3f\n", a / b }')")
            fi
        done
        if [ -z "$other" ]; then
            printf '| %s | %s | %.1f | %.1f |\n' "$lab" "$stage" "$(column 1 "${here[@]}")" \
                "$(column 2 "${here[@]}")"
        else
            printf '| %s | %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n' "$lab" "$stage" \
                "$(column 1 "${there[@]}")" "$(column 2 "${there[@]}")" \
                "$(column 1 "${here[@]}")" "$(column 2 "${here[@]}")" "$(column 1 "${ratio[@]}")"
        fi
    done
done
