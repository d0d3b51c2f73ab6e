#!/usr/bin/env bash
# technique-test.sh: make grade LAB=reduce against submissions that try to
# buy the technique check (dummy work that moves the counts; a forged
# verdict line or record) or carry a file out through the reports, and
# against honest ones that must keep full marks. Every hostile case here
# won marks, or carried a file out, at 15441b8. Under EMU=1, no GPU needed.
# FORGERIES_ONLY=1: only the cases the sandbox's mode can change (the
# forgeries, the file carried out), for tests/grade/modes.sh.
# shellcheck disable=SC2016 # C code, in single quotes
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
class=$(mktemp -d "${TMPDIR:-/tmp}/class.XXXXXX") out=$(mktemp -d "${TMPDIR:-/tmp}/grades.XXXXXX")
# a file another checkout on the grading machine could hold, world-readable,
# outside everything the sandbox is given
secret=$(mktemp -d /var/tmp/other-checkout.XXXXXX) && chmod 755 "$secret"
marker="solution-line-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
printf 'sums[tid] += sums[tid + s]; /* %s */\n' "$marker" > "$secret/reduce.cu" && chmod 644 "$secret/reduce.cu"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$class" "$out" "$out".* "$secret"' EXIT
good=$out.good.cu
tests/grade/handed-in.sh reduce > "$good"
status=0
fail() { echo "technique-test: $*"; status=1; }

# region FILE STAGE: the code of stage STAGE's first TODO region (its hint
# comment left out)
region() {
    awk -v s="$2" '$0 ~ "/\\* TODO stage " s " -" && !done { hint = 1; on = 1; next }
        on && hint { if (index($0, "*/")) hint = 0; next }
        on && /END TODO/ { on = 0; done = 1 } on' "$1"
}
# hand_in NAME [STAGE BODY] [HELPERS]: the good file, stage STAGE's first
# region holding BODY instead, and HELPERS added to the region for the
# file's own helpers
hand_in() {
    mkdir -p "$class/$1/labs/reduce"
    STAGE=${2:-} BODY=${3:-} HELPERS=${4:-} awk '
        BEGIN { s = ENVIRON["STAGE"] }
        /TODO your own includes and helpers/ { helpers = 1 }
        helpers && index($0, "*/") { print; print ENVIRON["HELPERS"]; helpers = 0; next }
        s != "" && $0 ~ "/\\* TODO stage " s " -" && !done { hint = 1; on = 1 }
        on && hint { print; if (index($0, "*/")) { hint = 0; print ENVIRON["BODY"] } next }
        on && /END TODO/ { on = 0; done = 1 }
        !on { print }' "$good" > "$class/$1/labs/reduce/reduce.cu"
}
stage1=$(region "$good" 1)
[ -n "$stage1" ] || { echo "technique-test: stage 1's region not found"; exit 1; }

hand_in good
# stage 2 written as stage 1's interleaved tree: right, without its idea
hand_in lazy-2 2 "$stage1"
# ... and a verdict printed for it, which the grader once read
hand_in forges-line 2 "$stage1" '#include <stdio.h>
#include <string.h>
__attribute__((constructor)) static void forge(int argc, char **argv)
{
    for (int k = 1; k < argc; k++)
        if (strncmp(argv[k], "technique=", 10) == 0)
            printf("TECHNIQUE\t%s\tshown\tshown\t\n", argv[k] + 10);
}'
# ... and a record written for it before the counter could
hand_in forges-record 2 "$stage1" '#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((constructor)) static void forge(int argc, char **argv)
{
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "technique=2") == 0) {
            mkdir("results/technique", 0755);
            FILE *f = fopen("results/technique/technique.txt", "w");
            if (f) {
                fprintf(f, "workbook technique record 1\nlab reduce\nstage %s\ncase 131075 256\n"
                           "verdict shown\ncounts 0\nseal 0123456789abcdef\n", "2");
                fclose(f);
            }
            _exit(0);
        }
}'
# Another checkout's file, read and pushed into every channel a reason once
# came from: the verdict line, and the failure a judged case reads back.
hand_in carries-out "" "" '#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((constructor)) static void carry(int argc, char **argv)
{
    char got[200] = "(unreadable)";
    FILE *f = fopen("'"$secret/reduce.cu"'", "r");
    if (f) { size_t n = fread(got, 1, sizeof got - 1, f); got[n] = 0; fclose(f); }
    got[strcspn(got, "\n")] = 0;
    printf("%s\n", got);
    for (int k = 1; k < argc; k++)
        if (strncmp(argv[k], "technique=", 10) == 0)
            printf("TECHNIQUE\t%s\tmissing\t%s\t\n", argv[k] + 10, got);
        else if (strcmp(argv[k], "stage=1") == 0)
            for (int c = 1; c <= 40; c++) {
                char dir[64];
                snprintf(dir, sizeof dir, "results/%d", c), mkdir(dir, 0755);
                snprintf(dir, sizeof dir, "results/%d/1-0", c), mkdir(dir, 0755);
                strcat(dir, "/failed");
                FILE *w = fopen(dir, "w");
                if (w) { fprintf(w, "cudaErrorUnknown\n%s\n", got); fclose(w); }
            }
}'
# ... or included, so that the compiler quotes it in its first error
hand_in includes-other "" "" "#include \"$secret/reduce.cu\""

# Dummy work that bought a stage's technique under the old traits, and
# honest work that must keep every mark: blocks of tests/mutants/reduce.mut,
# planted (NAME; the block's "stage | mistake" as a regular expression;
# for the hostile, what the stage's reason must say).
hostile=(
    "dilutes-2;^2 \| stage 1's tree after 64 warm-up stores;not strided"
    "dilutes-3;^3 \| stage 1's tree after 64 warm-up stores;not strided"
    "dilutes-banks-3;^3 \| stage 2's tree after 64 conflict-free;conflict in banks"
    "dilutes-4;^4 \| stage 1's tree after the first add;not strided"
    "atomics-7;^7 \| the block's sum by a shared atomicAdd;atomics add"
    "one-noop-shuffle-8;^8 \| stage 7's shared tree with one no-op shuffle;no warp sums by shuffles"
    "five-noop-shuffles-8;^8 \| stage 7's shared tree after five no-op;passes through shared memory"
    "noops-and-atomics-8;^8 \| a shared atomicAdd a thread after five no-op;atomics add"
)
honest=$(sed -n 's/^== \([0-9a-z,]*\) | honest: .*/\1/p' tests/mutants/reduce.mut | wc -l)
[ "$honest" -ge 9 ] || { echo "technique-test: reduce.mut holds $honest honest blocks, not the 9 it should"; exit 1; }
[ "${FORGERIES_ONLY:-0}" = 0 ] || hostile=() honest=0
plant() { # NAME REGEX
    mkdir -p "$class/$1/labs/reduce" || exit 1
    tests/mutants/plant.sh reduce "$2" > "$class/$1/labs/reduce/reduce.cu" ||
        { echo "technique-test: $1 could not be planted"; exit 1; }
}
for case in "${hostile[@]}"; do IFS=';' read -r name regex _ <<< "$case"; plant "$name" "$regex"; done
for k in $(seq "$honest"); do plant "honest-$k" "^$(sed -n 's/^== \([0-9a-z,]*\) | \(honest: .*\)/\1 | \2/p' \
    tests/mutants/reduce.mut | sed -n "${k}p" | sed 's/[][\\.*^$+?(){}|]/\\&/g')\$"; done

SEED=7 GRADE_STAGE_SECONDS=60 make --no-print-directory grade SUBMISSIONS="$class" OUT="$out" LAB=reduce \
    EMU=1 JOBS=2 > "$out.log" 2>&1 || { tail -5 "$out.log"; fail "make grade failed"; }
rm -f "$out.log"

full=$(tests/grade/stages.sh build/emu/solutions reduce)
score() { score_awk '{ t += $col["points"] } END { print t + 0 }' "$out/$1/reduce/score.tsv" 2> /dev/null; }
expect() { # NAME POINTS [STAGE TEXT]: its score, and stage STAGE's reason
    local got
    got=$(score "$1")
    if [ "$got" != "$2" ]; then fail "$1: $got of $full, expected $2"
    else echo "technique-test: $1: $got of $full, as it should"; fi
    [ -z "${3:-}" ] || score_awk -v s="$3" '$col["stage"] == s { print $col["why"] }' "$out/$1/reduce/score.tsv" |
        grep -q "$4" ||
        fail "$1: stage $3's reason does not say '$4'"
}
expect good "$full"
expect lazy-2 $((full - 1)) 2 'their index is not strided'
expect forges-line $((full - 1)) 2 'their index is not strided'
expect forges-record $((full - 1)) 2 'flagged for review'
expect carries-out $((full - 1)) 1 'its own process said'
expect includes-other 0 1 'does not compile'
grep -q '"forges-record",.*reduce 2 (forged: review)' "$out/grades.csv" ||
    fail "grades.csv does not flag the forged record for review"
for case in "${hostile[@]}"; do
    IFS=';' read -r name regex says <<< "$case"
    expect "$name" $((full - 1)) "${regex:1:1}" "$says"
done
for k in $(seq "$honest"); do expect "honest-$k" "$full"; done

# Nothing read outside the sandbox reaches a report, nor even the run.
if grep -rlF "$marker" "$out" > /dev/null; then
    fail "another checkout's file was read inside the sandbox; it reached: $(grep -rlF "$marker" "$out" | tr '\n' ' ')"
else
    echo "technique-test: carries-out could not read another checkout's file, nor report it"
fi
[ $status = 0 ] && echo "technique-test: no technique point bought, no file carried out$(
    [ "${FORGERIES_ONLY:-0}" = 0 ] && echo ", honest work kept" || echo " (the forgeries only)")"
exit $status
