#!/usr/bin/env bash
# census.sh [LAB...] [-- MAKE-ARGS...]: make mutants, side by side: the
# catalogue (tests/mutants/*.mut) dealt out to JOBS copies of this checkout
# (default: one a CPU core; with EMU=0, two a GPU test slot), each running mutants.sh on its share. Prints
# mutants.sh's table in the catalogue's order, then its totals summed; exits
# as mutants.sh would have.
#
# With EMU=0 every test and sanitizer run holds one of GPU_TESTS slots a GPU
# (default 3: eight test processes at once on one H200 made correct stages
# time out), spread over every GPU nvidia-smi lists; the builds run beside
# them. The copies and their logs are in build/census (each first report in
# build/census/<k>/build/mutants/<n>.log.first). Linux only (flock).
set -u
cd "$(dirname "$0")/../.." || exit 1
labs=() make_args=()
while [ $# -gt 0 ]; do
    [ "$1" = -- ] && { shift; make_args=("$@"); break; }
    labs+=("$1")
    shift
done
emu=${EMU:-1}
work=build/census
rm -rf "$work" && mkdir -p "$work/slots"

slots=
if [ "$emu" != 1 ]; then
    gpus=$(nvidia-smi --list-gpus 2> /dev/null | grep -c '^GPU')
    [ "$gpus" -gt 0 ] || { echo "census: EMU=0 needs a GPU, and nvidia-smi lists none"; exit 1; }
    slots="$work/slots:$((${GPU_TESTS:-3} * gpus)):$gpus"
fi
# On a GPU a copy builds while another tests: two a slot. More starve the
# tests' own CPU work (Criterion runs a test a core, the technique's count
# is emulated): 30 copies on two H200s' 32 cores ran at a load of 50 to 68,
# and correct stages did not finish in 30 s.
jobs=${JOBS:-$([ "$emu" = 1 ] && nproc || echo $((2 * ${GPU_TESTS:-3} * gpus)))}
# And each test run shares the cores with the others: Criterion runs as
# many tests at once as there are cores, so six runs of twenty tests each
# put two H200s' 32 cores at a load of 110, and stages were stopped.
if [ "$emu" != 1 ] && [[ " ${make_args[*]} " != *" TESTFLAGS="* ]]; then
    each=$(($(nproc) / (${GPU_TESTS:-3} * gpus)))
    make_args+=("TESTFLAGS=--jobs=$((each > 0 ? each : 1))")
fi

start=$SECONDS
# What every copy shares (the harness, the emulation) is built once, in the
# first copy, with every core, and copied with it.
mkdir -p "$work/0"
tar --exclude=./build --exclude=./.git --exclude=./.gpu-deps -cf - . | tar -xf - -C "$work/0"
(cd "$work/0" && if [ "$emu" = 1 ]; then make -j "$jobs" EMU=1 NVCC_CHECK= build/emu/probe
                 else make -j "$jobs" EMU=0 build/probe && make -j "$jobs" EMU=1 build/emu/probe; fi
) > "$work/build.log" 2>&1 || { tail -n 20 "$work/build.log"; echo "census: the harness does not build"; exit 1; }
for ((k = 0; k < jobs; k++)); do
    [ $k = 0 ] || cp -a "$work/0" "$work/$k"
done
catalogue=(tests/mutants/*.mut)
[ ${#labs[@]} = 0 ] || catalogue=("${labs[@]/#/tests/mutants/}") catalogue=("${catalogue[@]/%/.mut}")
pids=()
for ((k = 0; k < jobs; k++)); do
    (cd "$work/$k" && exec setsid env PICK="$k/$jobs" GPU_SLOTS="${slots:+$PWD/../slots:${slots#*:}}" EMU="$emu" \
        tests/mutants/mutants.sh "${labs[@]}" -- "${make_args[@]}" > ../$k.txt 2>&1) &
    pids+=($!)
done
# TIME_LIMIT=S: the copies still at work after S seconds are stopped, and
# the census says how many blocks did not run.
cut_off=0
while [ -n "$(jobs -r)" ]; do
    if [ -n "${TIME_LIMIT:-}" ] && [ $((SECONDS - start)) -ge "$TIME_LIMIT" ]; then
        for pid in "${pids[@]}"; do kill -- -"$pid" 2> /dev/null; done
        cut_off=1
        break
    fi
    sleep 1
done
wait

# The rows by block number, and their totals, counted as mutants.sh counts.
rows=$(cat "$work"/[0-9]*.txt | grep -P '^\d+\t' | sort -n)
all=0 # the blocks ONLY picks, as mutants.sh picks them
while IFS= read -r block; do
    [[ -z "${ONLY:-}" || $block =~ $ONLY ]] && all=$((all + 1))
done < <(sed -n 's/^== //p' "${catalogue[@]}")
printf '%-18s %-4s %-44s %s\n' lab stage mistake "the tests"
awk -F '\t' 'NF == 5 { printf "%-18s %-4s %-44.44s %s\n", $2, $3, $4, $5 }' <<< "$rows"
awk -v seed="${SEED:-1234}" -v emu="$emu" -f tests/mutants/totals.awk <<< "$rows"
status=$?
run=$(grep -c . <<< "$rows")
echo "census: $((SECONDS - start)) s, in $jobs copies of the checkout"
if [ "$cut_off" = 1 ]; then
    echo "census: stopped at TIME_LIMIT: $((all - run)) of $all blocks not run, nor counted above"
    status=1
fi
# What each row that is not as it must be printed first (its log is named
# by the block's place in the catalogue).
awk -F '\t' 'NF == 5 && ($5 ~ /DOES NOT/ || $5 !~ /^(caught, says it first|kept: passes every test|warned, says it|not caught (under EMU=1|on a GPU): )/)' <<< "$rows" |
    while IFS=$'\t' read -r block lab stage what verdict; do
        printf '\n%s %s | %s: %s\n' "$lab" "$stage" "$what" "$verdict"
        sed 's/^/    /' "$work"/*/build/mutants/"$block".log.first
    done
exit $status
