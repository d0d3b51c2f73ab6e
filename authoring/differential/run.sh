#!/usr/bin/env bash
# run.sh COUNT [SEED [JOBS]]: differential testing of the CPU emulation.
# COUNT random kernels of SEED (authoring/differential/gen.c; default 1),
# in batches of BATCH (100) a program, built JOBS at a time (default: the
# cores) under the emulation and, where nvidia-smi finds a GPU, by nvcc;
# each batch run on both, on the same inputs. A kernel agrees when the
# emulation reports nothing (the generator made it race-free) and its
# output words are the GPU's. The census, with each disagreement (seed and
# kernel, what differs, the first word that does), goes to
# results/<gpu>/differential.md, or results/emulation/differential.md
# without a GPU; the status is 1 if any kernel disagreed.
#   GPU=0           the emulation alone, even where a GPU is
#   AGAINST=DIR     compare with the outputs of an earlier run instead of a
#                   GPU (its build/differential/out/gpu, copied back)
#   REFERENCE=FILE  compare with the GPU's checksums that a census FILE
#                   records (its first 1000 kernels), where they are of this
#                   gen.c and seed: make check's run, without a GPU
#   CENSUS=FILE     write the census there instead (make check: a scratch file)
#   PLANT=race      plant a bug in every kernel (gen.c: the first barrier of
#                   each block exchange left out), to see it caught
set -u
cd "$(dirname "$0")/../.." || exit 1
count=${1:?usage: authoring/differential/run.sh COUNT [SEED [JOBS]]}
seed=${2:-1}
jobs=${3:-$(nproc)}
batch=${BATCH:-100}
started=$SECONDS
out=build/differential/out
src=build/differential/src

gpu_name=
if [ "${GPU:-}" != 0 ] && [ -z "${AGAINST:-}" ]; then
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
fi
# shellcheck source=tools/bench-csv.sh
. tools/bench-csv.sh
if [ -n "$gpu_name" ]; then
    census=${CENSUS:-results/$(bench_folder "$gpu_name")/differential.md}
else
    census=${CENSUS:-results/emulation/differential.md}
fi

# ---- the batches: each written again only if it changed, so make rebuilds
# only what did
make -s build/differential/gen || exit 1
mkdir -p "$src" "$out/emu" "$out/gpu"
rm -f "$out"/emu/* "$out"/gpu/*
names=()
for ((first = 0; first < count; first += batch)); do
    n=$((count - first < batch ? count - first : batch))
    name=$(printf 's%s-%06d-%d' "$seed" "$first" "$n")${PLANT:+-$PLANT}
    PLANT=${PLANT:-} build/differential/gen "$seed" "$first" "$n" > "$src/$name.cu.new" || exit 1
    if cmp -s "$src/$name.cu.new" "$src/$name.cu"; then rm "$src/$name.cu.new"; else mv "$src/$name.cu.new" "$src/$name.cu"; fi
    names+=("$name")
done

# ---- built: both sides at once, each with JOBS jobs
echo "differential: $count kernels of seed $seed in ${#names[@]} batches, building with $jobs jobs" \
    "(the emulation${gpu_name:+ and nvcc for the $gpu_name})"
build_log=build/differential/build.log
: > "$build_log"
programs=("${names[@]/%/.bin}")
make -s -k -j"$jobs" EMU=1 NVCC_CHECK= "${programs[@]/#/build/emu/differential/}" > /dev/null 2>> "$build_log" &
emu_make=$!
if [ -n "$gpu_name" ]; then
    make -s -k -j"$jobs" "${programs[@]/#/build/differential/}" > /dev/null 2>> "$build_log" &
    wait $!
fi
wait $emu_make
built=$((SECONDS - started))

# ---- run: a batch's program prints "INDEX ok CHECKSUM" or "INDEX error WHY"
# a kernel; one that dies or hangs leaves its kernels without a line
run_side() { # SIDE BINARY-FOLDER
    printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} sh -c \
        "[ ! -x '$2/{}.bin' ] || EMU_WORKERS=2 timeout 300 '$2/{}.bin' > '$out/$1/{}.txt' 2> /dev/null"
}
run_side emu build/emu/differential
[ -z "$gpu_name" ] || run_side gpu build/differential
against=${AGAINST:-$out/gpu}
# The GPU's checksums a census records, as a run's outputs, if they are of
# this gen.c and seed; kernels past them are the emulation's alone.
generator=$(sha256sum authoring/differential/gen.c | cut -c1-16)
reference=
if [ -n "${REFERENCE:-}" ] && [ -z "$gpu_name" ] && [ -z "${AGAINST:-}" ]; then
    if grep -qx "gen.c $generator, seed $seed:" "$REFERENCE" 2> /dev/null; then
        reference=$REFERENCE against=$out/reference
        mkdir -p "$against" && rm -f "$against"/*
        for name in "${names[@]}"; do
            range=${name#s"$seed"-} first=$((10#${range%%-*})) n=${range#*-} n=${n%%-*}
            awk -v first="$first" -v n="$n" '$2 == "ok" && $1 >= first && $1 < first + n' \
                <(sed -n '/^gen.c .*, seed .*:$/,/^```$/p' "$REFERENCE") > "$against/$name.txt"
        done
    else
        echo "differential: $REFERENCE holds no checksums of this gen.c and seed $seed: the emulation alone"
    fi
fi
ran=$((SECONDS - started - built))

# ---- compared, kernel by kernel: a line for each that disagrees
report=$(mktemp) || exit 1
trap 'rm -f "$report"' EXIT
compared=
[ -z "$gpu_name$reference" ] && [ ! -d "${AGAINST:-/nonexistent}" ] || compared=1
first_word() { # BATCH INDEX: the first word the two sides give differently
    [ -z "${AGAINST:-}$reference" ] || { echo "the checksums (run both sides' programs with the kernel's index for its words)"; return; }
    diff <(build/emu/differential/"$1".bin "$2") <(build/differential/"$1".bin "$2" 2> /dev/null) |
        awk '/^</ { e = substr($0, 3) } /^>/ { print e " under the emulation, " substr($0, 3) " on the GPU"; exit }'
}
emu_ok=0 other_ok=0 same=0
for name in "${names[@]}"; do
    range=${name#s"$seed"-} first=$((10#${range%%-*})) n=${range#*-} n=${n%%-*}
    unbuilt=$(grep -q "$name" "$build_log" && echo ' (its batch did not build)')
    while IFS=$'\t' read -r k what; do
        case $what in
            emu-ok) emu_ok=$((emu_ok + 1)) ;;
            other-ok) other_ok=$((other_ok + 1)) ;;
            same) same=$((same + 1)) ;;
            differ) printf '| %s | %s | outputs differ: %s |\n' "$seed" "$k" "$(first_word "$name" "$k")" >> "$report" ;;
            *) printf '| %s | %s | %s |\n' "$seed" "$k" "${what//|/\\|}$unbuilt" >> "$report" ;;
        esac
    done < <(awk -v first="$first" -v n="$n" -v compared="$compared" -v partial="$reference" '
        FILENAME == ARGV[1] { emu[$1] = $2 == "ok" ? $3 : "error " substr($0, index($0, " error ") + 7); next }
        { other[$1] = $2 == "ok" ? $3 : "error " substr($0, index($0, " error ") + 7) }
        END {
            for (k = first; k < first + n; k++) {
                known = k in other
                e = emu[k]; o = other[k]
                if (e != "" && e !~ /^error /) print k "\temu-ok"
                if (o != "" && o !~ /^error /) print k "\tother-ok"
                if (e == "") print k "\tthe emulation gave no result"
                else if (e ~ /^error /) print k "\tthe emulation reports: " substr(e, 7)
                else if (!compared || (partial != "" && !known)) continue
                else if (o == "") print k "\tthe GPU gave no result"
                else if (o ~ /^error /) print k "\tthe GPU fails: " substr(o, 7)
                else print k "\t" (e == o ? "same" : "differ")
            }
        }' "$(ls "$out/emu/$name.txt" 2> /dev/null || echo /dev/null)" \
           "$(ls "$against/$name.txt" 2> /dev/null || echo /dev/null)")
done
disagree=$(wc -l < "$report")

# ---- the census
mkdir -p "$(dirname "$census")"
{
    echo "<!-- Written by authoring/differential/run.sh: run it again rather than edit. -->"
    echo "# Differential testing: the CPU emulation${gpu_name:+ against the $gpu_name}${AGAINST:+ against $AGAINST}${reference:+ against the checksums of a GPU in $reference}"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- workbook commit: $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
    echo "- command: \`authoring/differential/run.sh $count $seed $jobs\`${PLANT:+ with PLANT=$PLANT}"
    echo "- machine: $(nproc) CPU cores${gpu_name:+; GPU $gpu_name, CUDA $(nvcc --version 2> /dev/null | tail -n 1)}"
    echo "- kernels: $count of seed $seed, in ${#names[@]} batches of at most $batch"
    echo "- the emulation: $emu_ok ran without a report"
    if [ -n "$reference" ]; then
        echo "- the other side: the checksums of the GPU in $reference, for $other_ok of the kernels; $same gave the emulation's"
    elif [ -n "$compared" ]; then
        echo "- the other side: $other_ok ran; $same gave every output word the emulation gave"
    else
        echo "- the other side: none (no GPU here): the emulation's reports alone are checked"
    fi
    echo "- disagreements: $disagree"
    echo "- time: ${built} s to build, $((SECONDS - started - built)) s to run and compare"
    echo
    echo "## Disagreements"
    echo
    if [ "$disagree" = 0 ]; then
        echo "None."
    else
        echo "A kernel again, alone: \`build/differential/gen SEED KERNEL 1 > build/differential/src/one.cu &&"
        echo "make EMU=1 build/emu/differential/one.bin && build/emu/differential/one.bin\`."
        echo
        echo "| seed | kernel | what |"
        echo "|---:|---:|---|"
        head -n 200 "$report"
        [ "$disagree" -le 200 ] || echo "| | | ... and $((disagree - 200)) more |"
    fi
    echo
    echo "## Constructs"
    echo
    echo "What the kernels used (gen.c's vocabulary), in how many kernels, how many times."
    echo
    echo "| construct | kernels | uses |"
    echo "|---|---:|---:|"
    for name in "${names[@]}"; do grep '^/\* kernel [0-9]* of seed .*; uses:' "$src/$name.cu"; done |
        awk -F'; ' 'FILENAME == "-" { sub(/.*uses: /, ""); sub(/; \*\/$/, "")
                                     for (i = 1; i <= NF; i++) { split($i, kv, "="); kernels[kv[1]]++; uses[kv[1]] += kv[2] }
                                     next }
                    { printf "| %s | %d | %d |\n", $0, kernels[$0], uses[$0] }' - <(build/differential/gen --vocabulary)
    if [ -n "$gpu_name" ]; then
        echo
        echo "## The GPU's checksums"
        echo
        echo "Of the first kernels, for make check to compare the emulation's with (run.sh REFERENCE=):"
        echo
        echo '```text'
        echo "gen.c $generator, seed $seed:"
        for name in "${names[@]}"; do cat "$out/gpu/$name.txt" 2> /dev/null; done | awk '$1 < 1000 && $2 == "ok"'
        echo '```'
    fi
} > "$census.tmp" && mv "$census.tmp" "$census"
[ "$disagree" = 0 ] || sed 's/^| [0-9]* | \([0-9]*\) | /differential: kernel \1: /; s/ |$//' "$report" | head -n 5
echo "differential: $count kernels, $disagree disagreements, in $((SECONDS - started)) s (build ${built} s," \
    "runs $ran s): $census"
[ "$disagree" = 0 ]
