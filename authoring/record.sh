#!/usr/bin/env bash
# record.sh BINS LAB...: make record. On this machine's GPU, each lab's run
# table at n = 2^28 (its first variant, with the block-size sweep; then the
# course's other reference points, without it) into
# results/<gpu>/<lab>/run.md, replacing the last record of that lab on that
# GPU; with CHECK=1 first make check's proof, into results/<gpu>/check.md.
# Then authoring/results-index.sh redraws the index and the machine's page.
set -u
bins=$1
shift
here=$(dirname "$0")
# shellcheck source=tools/bench-csv.sh
. "$here/../tools/bench-csv.sh"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
[ -n "$name" ] || { echo "make record: no NVIDIA GPU here (nvidia-smi finds none): a record is of a GPU"; exit 1; }
gpu=results/$(bench_folder "$name")

# What a lab's record adds to its first variant at 2^28: radix's pairs,
# transpose's odd shapes (the bench's largest, and one whose rows of out
# never start on a line).
more_runs() {
    case $1 in
        radix) echo "VARIANT=u32-pairs" ;;
        transpose) echo "N=15000x17893 N=16383x16385" ;;
    esac
}

status=0
if [ "${CHECK:-}" = 1 ]; then
    "$here/record-results.sh" "$gpu/check.md" "make check" "make -j$(nproc) check" || status=1
fi
for lab in "$@"; do
    size=2^28
    [ "$("$bins/$lab/run" list=shape)" != matrix ] || size=16384x16384
    first=$("$bins/$lab/run" list=variants | head -n 1)
    base="make -s run LAB=$lab SOLUTION=1 SEED=1"
    cmds=("$base N=$size${first:+ VARIANT=$first}")
    for extra in $(more_runs "$lab"); do
        case $extra in
            N=*) cmds+=("$base $extra${first:+ VARIANT=$first} SWEEP=0") ;;
            *) cmds+=("$base N=$size $extra SWEEP=0") ;;
        esac
    done
    "$here/record-results.sh" "$gpu/$lab/run.md" "$lab" "${cmds[@]}" || status=1
    echo "record: $gpu/$lab/run.md"
done
"$here/results-index.sh" || status=1
exit $status
