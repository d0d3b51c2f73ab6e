#!/usr/bin/env bash
# soak.sh BUILD SEEDS LAB...: the emulation must never report a mistake in
# correct code. `make soak` runs it (SEEDS=200 for the census in
# results/emulation/soak.txt; CI runs a few).
#
# For each seed: the emulator's own tests (SEED=seed), and every stage of
# every lab's solution checked once (run once=1), each run at a size, a
# block, an input variant and a number of emulated workers that the seed
# picks, so that over the seeds every stage meets partial tiles, odd
# blocks, every variant, one worker and many, and the block orders the seed
# scrambles. Everything runs under load: twice as many runs at once as
# there are cores, beside a busy loop per core. Any report, crash or
# time-out fails the soak, with the command that repeats it.
#
# Prints a line per lab and stage (runs, reports), then the totals.
set -u
build=$1 seeds=$2
shift 2
cores=$(nproc)
jobs=${JOBS:-$((2 * cores))}
work=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX")
busy=()
cleanup() {
    [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sizes=(1 33 1000 4999 65537 131075 262147) # the tests go to 2^20: here, many orders
shapes=(1x1 31x33 47x33 256x288 1000x999 33x1025)
blocks=(256 32 96 128 1000 1024 64 512)
workers=(2 1 3 8 16)
pick() { # pick K WORDS...: the word the seed K picks, each list cycled at its own length
    local k=$1
    shift
    local words=("$@")
    echo "${words[k % ${#words[@]}]}"
}

# One line per run: "name<TAB>command".
{
    for ((k = 1; k <= seeds && ${EMU_TESTS:-1}; k++)); do # EMU_TESTS=0 leaves them out
        printf 'emu tests\tSEED=%d EMU_WORKERS=%s %s/emutest --short-filename\n' \
            "$k" "$(pick "$k" "${workers[@]}")" "$build"
    done
    for lab in "$@"; do
        run=$build/solutions/$lab/run
        [ -x "$run" ] || { echo "soak: $run is missing: make soak builds it" >&2; exit 2; }
        mapfile -t stages < <("$run" list=stages | cut -f1)
        mapfile -t variants < <("$run" list=variants | sed 's/^/variant=/')
        [ ${#variants[@]} -gt 0 ] || variants=("") # a lab of one variant names none
        if [ "$("$run" list=shape)" = matrix ]; then n=("${shapes[@]}"); else n=("${sizes[@]}"); fi
        for stage in "${stages[@]}"; do
            for ((k = 1; k <= seeds; k++)); do
                # the seed's own mix: k picks each list at its own stride
                printf '%s stage %s\tEMU_WORKERS=%s %s once=1 stage=%s n=%s block=%s %s seed=%d\n' \
                    "$lab" "$stage" "$(pick $((k / 3)) "${workers[@]}")" "$run" "$stage" \
                    "$(pick "$k" "${n[@]}")" "$(pick $((k / 2)) "${blocks[@]}")" \
                    "$(pick $((k / 5)) "${variants[@]}")" "$k"
            done
        done
    done
} > "$work/runs" || exit 2
[ -z "${SOAK_LIST:-}" ] || { cat "$work/runs"; exit 0; } # SOAK_LIST=1: the runs, none run

for ((c = 0; c < cores; c++)); do
    (while :; do :; done) &
    busy+=($!)
done

# Each run: its status line "name<TAB>ok|report<TAB>command", and on a
# report its output beside it. A run is a group of its own (setsid), so a
# time-out ends it whole.
soak_one() { # NUMBER NAME COMMAND
    if timeout 300 setsid bash -c "$3" > "$work/$1.out" 2>&1; then
        printf '%s\tok\t%s\n' "$2" "$3" > "$work/$1.status"
        rm -f "$work/$1.out"
    else
        printf '%s\treport\t%s\n' "$2" "$3" > "$work/$1.status"
    fi
}
k=0
while IFS=$'\t' read -r name command; do
    k=$((k + 1))
    # the busy loops are jobs too, and never end
    [ "$(jobs -rp | wc -l)" -lt $((jobs + ${#busy[@]})) ] || wait -n
    soak_one "$k" "$name" "$command" &
done < "$work/runs"
while [ "$(jobs -rp | wc -l)" -gt ${#busy[@]} ]; do wait -n; done
kill "${busy[@]}" 2>/dev/null
busy=()
reports=0
for status in "$work"/*.status; do
    IFS=$'\t' read -r _ verdict command < "$status"
    [ "$verdict" = report ] || continue
    reports=$((reports + 1))
    [ $reports -le 5 ] || continue
    echo "soak: a report on correct code; to repeat it: $command"
    head -c 2000 "${status%.status}.out" | sed 's/^/  /'
    echo
done
runs=$(wc -l < "$work/runs")
done_runs=$(cat "$work"/*.status 2>/dev/null | wc -l)
cat "$work"/*.status | awk -F'\t' '
    { runs[$1]++; if ($2 == "report") reports[$1]++ }
    END { for (n in runs) printf "%-30s %6d runs %4d reports\n", n, runs[n], reports[n] }' | sort
echo "soak: $done_runs of $runs runs, $reports reports, at $seeds seeds, $jobs at once on $cores cores under load"
[ "$done_runs" = "$runs" ] && [ $reports = 0 ]
