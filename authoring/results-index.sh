#!/usr/bin/env bash
# results-index.sh [--check]: results/README.md, the index of what the
# GPUs measured (a lab a row, a GPU a column: the best stage of the lab's
# newest record against the library, or the copy where there is none, with
# its commit and date), and results/<gpu>/machine.md, what the newest
# record says of each machine. Both come from the files the tools wrote:
#   results/<gpu>/<lab>/run.md   make record (authoring/record-results.sh)
#   results/<gpu>/check.md       make record CHECK=1
#   results/<gpu>/<lab>/bench.*  make bench: CSV, the tables it printed, plots
#   results/<gpu>/mutants.md, profile.md   the census of planted mistakes and
#                                make profile on the GPU, as printed
#   results/<gpu>/differential.md   the emulation against the GPU on random
#                                kernels (authoring/differential/run.sh)
#   results/<gpu>/<lab>/experiment-<name>.txt   what a program of the
#                                notebook printed, as printed, where a handout
#                                argues from its table (its source stays in
#                                notebook/experiments/)
#   results/emulation/           what the CPU emulation measured
# Nothing else belongs there: investigations, experiments and patches are
# the instructors' notebook/. --check writes nothing and fails when the index
# or a machine's page is not what the records make, or when results/ holds
# a file outside this layout, or a record that lacks the recorder's header.
set -u
cd "$(dirname "$0")/.." || exit 1
# The GPU the handouts quote: the course's reference.
REFERENCE=H200
LABS=$(sed -n 's/^COURSE *:= *//p' Makefile) # the labs, in the course's order
US=$'\x1f'
check=
[ "${1:-}" != --check ] || check=1
status=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Every file, against the layout.
while IFS= read -r f; do
    rel=${f#results/} ok=
    case $rel in
        README.md | emulation/*.md | emulation/*.txt) ok=1 ;;
        */machine.md | */check.md | */mutants.md | */profile.md | */differential.md) [[ $rel == */*/* ]] || ok=1 ;;
        */*/run.md | */*/bench.csv | */*/bench.log | */*/bench.svg | */*/bench-*.svg | */*/experiment-*.txt)
            lab=${rel#*/} lab=${lab%%/*}
            [[ " $LABS " == *" $lab "* && $rel != */*/*/* ]] && ok=1 ;;
    esac
    [ -n "$ok" ] || { echo "results: $f is none of the files the tools write there (authoring/results-index.sh" \
        "names them; investigations belong in notebook/)"; status=1; }
done < <(find results -type f | sort)
for f in results/*/check.md results/*/*/run.md; do
    [ -e "$f" ] || continue
    head -n 1 "$f" | grep -q '^<!-- Written by authoring/record-results.sh' ||
        { echo "results: $f does not start with the recorder's header"; status=1; }
done

# FILE...: a line a record (a "- date:" line opens one), its fields split
# by US (empty ones are kept, as a tab would not be): file, date, commit,
# the GPU line of the header, its clocks, CUDA, machine, the driver's GPU
# line, and the first table's variant and best stage.
records() {
    awk -v OFS="$US" '
        function flush() { if (date != "") print file, date, commit, gpu, clocks, cuda, host, driver, variant, best
                           date = commit = gpu = clocks = cuda = host = driver = variant = best = ""; tables = 0; rows = 0; top = -1 }
        FNR == 1 && NR > 1 { flush() }
        /^- date: / { flush(); date = substr($0, 9); file = FILENAME }
        /^- workbook commit: / { commit = $4 }
        /^- GPU: / { gpu = substr($0, 8); sub(/ \(name, driver, memory\)$/, "", gpu) }
        /^- clocks: / { clocks = substr($0, 11) }
        /^- CUDA: / { cuda = substr($0, 9) }
        /^- machine: / { host = substr($0, 12) }
        /^GPU: / && driver == "" { driver = substr($0, 6) }
        /^[A-Za-z0-9-]+, [^:]+: / && tables == 0 && variant == "" { variant = $2; sub(/:$/, "", variant) }
        /^stage +idea +check/ { tables++; rows = 0; next }
        tables == 1 && /^-+ +-+/ { rows++; next }
        tables == 1 && rows == 1 && $1 !~ /^(copy|lib)$/ {
            ok = 0
            for (i = 2; i <= NF; i++) {
                if ($i == "ok") ok = 1
                if (ok && $i ~ /^[0-9.]+%$/) {
                    if ($i + 0 > top) { top = $i + 0; best_copy = "stage " $1 ": " $i " of the copy" }
                    break } } }
        /^best stage: / && best == "" {
            lib = $0; sub(/.*\(/, "", lib); sub(/[,)].*/, "", lib)
            best = "stage " $3 ": " $7 "x " lib }
        tables == 1 && rows == 2 && best == "" && top >= 0 { best = best_copy }
        END { flush() }' "$@"
}

# The newest record of FILE...: its fields, as records() gives them.
newest() { records "$@" | sort -t "$US" -k2,2 | tail -n 1; }

gpus=()
for dir in results/*/; do
    dir=${dir%/} gpu=${dir#results/}
    [ "$gpu" != emulation ] || continue
    # a folder with no file in it is none of a GPU's (a copy of the tree
    # that kept the folders of files since moved has them)
    [ -n "$(find "$dir" -type f -print -quit)" ] || continue
    if [ "$gpu" = "$REFERENCE" ]; then gpus=("$gpu" "${gpus[@]}"); else gpus+=("$gpu"); fi
done

# results/<gpu>/machine.md
for gpu in "${gpus[@]}"; do
    files=(results/"$gpu"/check.md results/"$gpu"/*/run.md)
    present=()
    for f in "${files[@]}"; do [ ! -e "$f" ] || present+=("$f"); done
    [ ${#present[@]} -gt 0 ] || continue
    IFS=$US read -r file date commit line clocks cuda host driver _ < <(newest "${present[@]}")
    {
        echo "<!-- Written by authoring/results-index.sh from the records beside it: do not edit. -->"
        echo "# ${line%%,*}"
        echo
        [ "$gpu" != "$REFERENCE" ] || echo "The course's reference GPU: the handouts quote its records."
        [ "$gpu" = "$REFERENCE" ] || echo "Not the course's reference GPU ($REFERENCE): its records stay, labelled, where a handout's argument needs them."
        echo
        echo "As its newest record gives it ($file, $date, commit $commit):"
        echo
        echo "- GPU: ${driver:-not printed}"
        echo "- name, driver, memory: $line"
        echo "- clocks: ${clocks:-not recorded (before the recorder wrote them); the workbook never sets them}"
        echo "- CUDA: $cuda"
        echo "- host: $host"
        echo
        echo "| record | date | commit |"
        echo "|---|---|---|"
        records "${present[@]}" | awk -F "$US" '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
    } > "$tmp/$gpu.md"
done

# results/README.md
{
    echo "<!-- Written by authoring/results-index.sh from the records below it: do not edit. -->"
    echo "# Results"
    echo
    echo "What the workbook measured, a folder a GPU (its machine.md says what it was), then"
    echo "a folder a lab: run.md, the run tables at n = 2^28 (make record); bench.csv and its"
    echo "plots, every size from 2^10 to 2^28 (make bench). emulation/ holds what the CPU"
    echo "emulation measured. The handouts quote the $REFERENCE, the course's reference GPU."
    echo
    echo "Each cell: the best stage of the lab's newest record, first variant, against the"
    echo "library (times its time) or, where the lab has none, the copy; then that record's"
    echo "commit and date."
    echo
    printf '| lab |'
    for gpu in "${gpus[@]}"; do printf ' %s |' "$gpu"; done
    printf '\n|---|'
    for gpu in "${gpus[@]}"; do printf -- '---|'; done
    echo
    for lab in $LABS; do
        printf '| %s |' "$lab"
        for gpu in "${gpus[@]}"; do
            f=results/$gpu/$lab/run.md
            if [ -e "$f" ]; then
                IFS=$US read -r _ date commit _ _ _ _ _ variant best < <(newest "$f")
                printf ' %s%s (%s, %s) |' "${variant:+$variant, }" "${best:-no table}" "$commit" "${date%% *}"
            else
                printf ' - |'
            fi
        done
        echo
    done
} > "$tmp/README.md"

place() { # GENERATED FILE
    if [ -n "$check" ]; then
        cmp -s "$1" "$2" || { echo "results: $2 is not what authoring/results-index.sh writes from the records: run it"
                              diff -u "$2" "$1" | head -n 20; status=1; }
    else
        cmp -s "$1" "$2" || cp "$1" "$2"
    fi
}
place "$tmp/README.md" results/README.md
for gpu in "${gpus[@]}"; do
    [ ! -e "$tmp/$gpu.md" ] || place "$tmp/$gpu.md" "results/$gpu/machine.md"
done
exit $status
