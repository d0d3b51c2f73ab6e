#!/usr/bin/env bash
# mutants.sh [LAB...] [-- MAKE-ARGS...]: plant the mistakes students really
# make into copies of the solutions (tests/mutants/<lab>.mut) and check that
# the tests catch each one, and that the report names the cause. `make
# mutants` runs it; MAKE-ARGS go to each make test (another compiler or
# platform: tests/platforms/platforms-test.sh).
#
# A .mut file holds one mutant a block:
#
#   == 1 | the bounds test left out          stage (or stages: 4,5), then what
#                                            the mistake is
#   @ reduce_stage1_kernel                   start looking from this line on
#                                            (comment lines are never matched)
#   - sums[tid] = i < n ? in[i] : T(0);      text of one line, replaced by
#   + sums[tid] = in[i];                     this text (more + lines: more
#                                            lines in its place)
#   ? past the end                           the first report must say this
#   ?emu in[1025]                            ... under EMU=1 only (?gpu: on a GPU only)
#   ? a || b                                 either one will do (which block a
#                                            report names may depend on timing)
#   ~ why the emulation cannot see it        a mistake only a GPU shows
#   ^ why a GPU hides it                     a mistake only the emulation shows
#   ! racecheck                              on a GPU, make sanitize TOOL=racecheck
#                                            must report it too
#
# A block whose mistake starts with "honest:" is no mistake but a right
# answer written another way (== 8 | honest: the warp sum as a butterfly):
# it must pass every test of its stage, the technique included, with no
# compiler warning; it has no ? lines. tests/mutants/plant.sh plants a block.
#
# The report must say it first: a student reads make test's output from the
# top, so the ? lines are looked for in its first report, the one the first
# failing test prints (its title line, then its indented lines up to
# "reproduce:"; a time-out's or a technique's line with its indented lines),
# or, when every test passes, the compiler's warnings. "says it later": only
# a later report names the cause.
#
# Prints a line per mutant, a count, and how many first reports name the
# cause, then how many honest variants are kept; exits non-zero if a mutant
# passes the tests (unless ~ or ^ says why it may), no report says what it
# must, or an honest variant fails.
# Uses EMU=1 unless EMU=0 is set (on a machine with a GPU). ONLY=REGEX plants
# only the mutants whose "stage | mistake" line it matches. tests/mutants/census.sh
# runs copies of it side by side: PICK=K/J takes every J-th block from the
# K-th (counting from 0) and numbers its lines; GPU_SLOTS=DIR:N:G makes each
# test or sanitizer run hold one of N lock files in DIR, on GPU (slot mod G).
set -u
cd "$(dirname "$0")/../.." || exit 1
labs="" make_args=()
while [ $# -gt 0 ]; do
    [ "$1" = -- ] && { shift; make_args=("$@"); break; }
    labs+="${labs:+ }$1"
    shift
done
labs=${labs:-$(for f in tests/mutants/*.mut; do basename "$f" .mut; done)}
work=build/mutants
emu=${EMU:-1}
export SEED=${SEED:-1234}
number=0 block=-1

# COMMAND... run on the GPU, in one of GPU_SLOTS's slots when it is set:
# more test runs at once than a GPU takes make correct stages time out.
on_gpu() {
    [ -n "${GPU_SLOTS:-}" ] || { "$@"; return; }
    local dir=${GPU_SLOTS%%:*} rest=${GPU_SLOTS#*:} slot fd status
    local slots=${rest%%:*} gpus=${rest#*:}
    while :; do
        for ((slot = 0; slot < slots; slot++)); do
            exec {fd}> "$dir/slot$slot"
            if flock -n "$fd"; then
                CUDA_VISIBLE_DEVICES=$((slot % gpus)) "$@"
                status=$?
                exec {fd}>&-
                return $status
            fi
            exec {fd}>&-
        done
        sleep 0.2
    done
}

# One line of the table (PICK: its block's number and its fields, a tab
# apart, for census.sh); and in $work/rows, for the count (totals.awk).
row() {
    printf '%s\t%s\t%s\t%s\n' "$@" >> "$work/rows"
    if [ -n "${PICK:-}" ]; then
        printf '%d\t%s\t%s\t%s\t%s\n' "$block" "$@"
    else
        printf '%-18s %-4s %-44.44s %s\n' "$@"
    fi
}

# TEXT as a regular expression that matches only itself.
literal() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

# The first report of make test's output in LOG (see above).
first_report() {
    awk '
        !start && /^([a-zA-Z-]+ )?stage [0-9a-z]+ \(/ { start = 1 }
        start && (/^[^ ]/ || /^$/) && shown { exit }
        start { print; shown = 1; if (/^  reproduce: /) exit }
        /^[a-zA-Z-]+: testing / { tested = 1 }
        !tested { before = before $0 "\n" }
        END { if (!start) printf "%s", before }
    ' "$1"
}

# Whether FILE says PHRASE, or one of its alternatives "a || b".
says() {
    local alternative rest=$1
    while :; do
        alternative=${rest%% || *}
        grep -qF -- "$alternative" "$2" && return 0
        [ "$alternative" != "$rest" ] || return 1
        rest=${rest#* || }
    done
}

run_one() {
    local lab=$1 stage=$2 what=$3 edits=$4 expect=$5 known=$6 tool=$7
    block=$((block + 1))
    [[ -z "${PICK:-}" || $((block % ${PICK#*/})) -eq ${PICK%/*} ]] || return 0
    [[ -z "${ONLY:-}" || "$stage | $what" =~ $ONLY ]] || return 0
    number=$((number + 1))
    [ -z "${PICK:-}" ] || number=$block # its log named by its place in the catalogue
    # one folder for every mutant in turn, so they share one build folder;
    # the copy keeps its dates, so only the planted file is built again
    local dir=$work/planted log=$work/$number.log
    rm -rf "$dir" && mkdir -p "$dir/labs" && cp -rp "labs/$lab" "$dir/labs/"
    if ! tests/mutants/plant.sh "$lab" "^$(literal "$stage | $what")\$" \
        > "$dir/labs/$lab/$lab.cu" 2> "$log"; then
        row "$lab" "$stage" "$what" "DOES NOT APPLY: $(cat "$log")"
        return
    fi
    : > "$log"
    if [ -n "${GPU_SLOTS:-}" ]; then # built first, outside the slot
        local goals=(build)
        [ "$emu" = 1 ] || goals+=(technique-runs)
        NO_COLOR=1 make --no-print-directory "${goals[@]}" \
            LAB="$lab" STAGE="$stage" EMU="$emu" SUBMISSION="$dir" REBUILD_SUBMISSION= "${make_args[@]}" >> "$log" 2>&1
    fi
    NO_COLOR=1 on_gpu make --no-print-directory test LAB="$lab" STAGE="$stage" EMU="$emu" \
        SUBMISSION="$dir" REBUILD_SUBMISSION= "${make_args[@]}" >> "$log" 2>&1
    local caught=$? verdict="caught, says it"
    first_report "$log" > "$log.first"
    if [[ $what == honest:* ]]; then
        verdict="kept: passes every test"
        if [ $caught -ne 0 ] || grep -q "^warnings in" "$log"; then
            verdict="HONEST, BUT FAILS: $(first_report "$log" | grep -v '^compiling ' | head -n 1)"
        fi
        row "$lab" "$stage" "$what" "$verdict"
        return
    fi
    if [ $caught -eq 0 ] && grep -q "^warnings in" "$log"; then
        caught=1 verdict="warned, says it" # a bug the tests' sizes cannot show
    fi
    if [ $caught -eq 0 ] && [ -n "$known" ]; then
        verdict="not caught $([ "$emu" = 1 ] && echo under EMU=1 || echo on a GPU): $known"
    elif [ $caught -eq 0 ]; then
        verdict="NOT CAUGHT"
    else
        [ "$verdict" = "warned, says it" ] || verdict="caught, says it first"
        [ -n "$expect" ] || verdict="caught; no ? line to read its report by"
        while IFS= read -r phrase; do
            [ -z "$phrase" ] || says "$phrase" "$log.first" || verdict="caught, says it later"
        done <<< "$expect"
        while IFS= read -r phrase; do
            [ -z "$phrase" ] || says "$phrase" "$log" || verdict="caught, but lacks: $phrase"
        done <<< "$expect"
    fi
    if [ -n "$tool" ]; then # compute-sanitizer's last line counts what it found
        NO_COLOR=1 on_gpu make --no-print-directory sanitize LAB="$lab" STAGE="$stage" TOOL="$tool" \
            SUBMISSION="$dir" REBUILD_SUBMISSION= > "$log.$tool" 2>&1
        if grep -qE "(ERROR|RACECHECK) SUMMARY: [1-9]" "$log.$tool"; then
            verdict+="; $tool reports it"
        else
            verdict+="; $tool DOES NOT REPORT IT"
        fi
    fi
    row "$lab" "$stage" "$what" "$verdict"
}

mkdir -p "$work" && : > "$work/rows"
printf '%-18s %-4s %-44s %s\n' lab stage mistake "the tests"
for lab in $labs; do
    stage="" what="" edits="" expect=""
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
        "== "*)
            [ -n "$stage" ] && run_one "$lab" "$stage" "$what" "$edits" "$expect" "$known" "$tool"
            stage=${line#== }; what=${stage#*| }; stage=${stage%% |*}
            edits="" expect="" known="" tool="" ;;
        "? "*) expect+="${line#? }"$'\n' ;;
        "?emu "*) [ "$emu" = 1 ] && expect+="${line#?emu }"$'\n' ;;
        "?gpu "*) [ "$emu" = 1 ] || expect+="${line#?gpu }"$'\n' ;;
        "~ "*) [ "$emu" = 1 ] && known=${line#~ } ;;
        "^ "*) [ "$emu" = 1 ] || known=${line#^ } ;;
        "! "*) [ "$emu" = 1 ] || tool=${line#! } ;;
        [@+-]" "*) edits+="$line"$'\n' ;;
        esac
    done < "tests/mutants/$lab.mut"
    [ -n "$stage" ] && run_one "$lab" "$stage" "$what" "$edits" "$expect" "$known" "$tool"
done
awk -v seed="$SEED" -v emu="$emu" -f tests/mutants/totals.awk "$work/rows"
