#!/usr/bin/env bash
# bench.sh BINS OUT LAB...: make bench. Each lab's run table (BINS/LAB/run,
# csv=) at n = 2^10, 2^12, ... 2^28, one table a size: every stage, the
# library and the copy, each checked once and then timed as `make run` times
# them. The rows go to OUT/<gpu>/<lab>/bench.csv under a header naming the
# GPU, driver, CUDA, date, commit and each row's idea, the tables to
# bench.log beside it; then tools/bench-plot.sh draws bench.svg from it, and
# with VARIANT=all (every variant in the one CSV) bench-<variant>.svg for
# each variant after the first. A matrix lab (transpose) takes, for each size, the square of that
# many elements and the odd shape one row short and one column over.
#   STAGE= and VARIANT= pass to the driver (VARIANT=all: every variant; the
#   first by default). BENCH_SIZES="2^10 2^12" replaces the sizes: the tests'
#   tiny sweep. COMMIT= names the commit where git cannot.
set -u
bins=$1 out=$2
shift 2
# shellcheck source=tools/bench-csv.sh
. "$(dirname "$0")/bench-csv.sh"
sizes=${BENCH_SIZES:-"2^10 2^12 2^14 2^16 2^18 2^20 2^22 2^24 2^26 2^28"}
seed=${SEED:-1}

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -n 1)
if [ -z "$gpu" ]; then gpu="CPU emulation, -"; fi
name=${gpu%%,*} driver=${gpu##*, }
folder=$(bench_folder "$name")
commit=${COMMIT:-$(git rev-parse --short HEAD 2> /dev/null || echo unknown)}
cuda=$(nvcc --version 2> /dev/null | tail -n 1)

shapes() { # LAB: the sizes its driver takes
    if [ "$("$bins/$1/run" list=shape)" = matrix ]; then
        for n in $sizes; do
            side=$(awk -v n=$((${n/^/**})) 'BEGIN { printf "%d", sqrt(n) + 0.5 }')
            echo "${side}x${side} $((side - 1))x$((side + 1))"
        done
    else
        echo "$sizes"
    fi
}

wrong_rows() { bench_awk '$col["check"] == "WRONG" { k++ } END { print k + 0 }' "$1"; }

# LAB LOG: the header's "# stage ID: idea" lines, which the plot's key reads:
# the stages' ideas whole from the driver, the copy's and the library's from
# its table in LOG.
ideas() {
    { bench_table_ideas "$2" | awk -F '\t' '$1 == "copy" || $1 == "lib"'
      "$bins/$1/run" list=stages; } | sed 's/\t/: /; s/^/# stage /'
}

status=0
for lab in "$@"; do
    dir=$out/$folder/$lab
    csv=$dir/bench.csv log=$dir/bench.log
    mkdir -p "$dir" || exit 1
    tmp=$(mktemp) || exit 1 # the rows, under the driver's line of column names
    : > "$log"
    for n in $(shapes "$lab"); do
        # the tables go to the log; the driver's progress line and errors to the terminal
        wrong=$(wrong_rows "$tmp")
        if ! "$bins/$lab/run" n="$n" seed="$seed" csv="$tmp" >> "$log"; then
            status=1
            [ "$(wrong_rows "$tmp")" != "$wrong" ] ||
                { echo; echo "bench: $lab at n = $n did not finish (its tables: $log)"; }
        fi
    done
    {
        echo "# make bench LAB=$lab: each row checked once, then timed as make run times it"
        echo "# (median of 20 CUDA-event runs after 3 warm-ups; cpu_ms: the CPU reference, one core)"
        echo "# gpu: $name"
        echo "# driver: $driver"
        echo "# cuda: ${cuda:-unknown}"
        echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "# commit: $commit"
        echo "# seed: $seed${STAGE:+, STAGE=$STAGE}${VARIANT:+, VARIANT=$VARIANT}"
        ideas "$lab" "$log"
        cat "$tmp"
    } > "$csv"
    rm -f "$tmp"
    echo
    echo "bench: $lab: $csv"
    wrong=$(bench_awk '$col["check"] == "WRONG" && !seen[$col["stage"]]++ { printf " %s", $col["stage"] }' "$csv")
    [ -z "$wrong" ] || echo "bench: $lab: wrong results from stage$wrong, left out of the plot" \
        "(make test LAB=$lab says why)"
    for variant in $("$bins/$lab/run" list=variants); do # another sweep's plots would mislead
        rm -f "$dir/bench-$variant.svg"
    done
    tools/bench-plot.sh "$csv" || status=1
done
exit $status
