#!/usr/bin/env bash
# gpu-time-test.sh: a grading in two tiers of a scan-large-arrays class, on
# this machine's GPU, where tier 2 times each stage that scored against the
# reference solution's (grading/grade.sh, time_verdict). A chain of waits
# with one status word published first and read by no tile passes for a
# decoupled look-back under the emulation's counts (tier 1 gives it stage
# 4's points); its time on the GPU must take them back and flag it, while
# the reference solution, handed in, keeps every point. Needs a GPU; says
# so and stops otherwise.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d .)
[[ $arch =~ ^[0-9]+$ ]] || { echo "gpu-time-test: no NVIDIA GPU here: nothing to time, nothing tested"; exit 0; }
lab=scan-large-arrays
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-time.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "gpu-time-test: $*"; status=1; }

good=$work/good.cu
tests/grade/handed-in.sh "$lab" > "$good"
# the code of stage STAGE's TODO region in FILE, its hint left out
region() {
    awk -v s="$2" '$0 ~ "/\\* TODO stage " s " -" && !done { hint = 1; on = 1; next }
        on && hint { if (index($0, "*/")) hint = 0; next }
        on && /END TODO/ { on = 0; done = 1 } on' "$1"
}
chain=$(region "$good" 3 | awk '/if \(tile > 0\) \{/ && !done {
    print "        ((volatile unsigned long long *)status)[1 + tile] = status_word(AGGREGATE, total);"; done = 1 } 1')
grep -q 'status_word(AGGREGATE, total)' <<< "$chain" || { echo "gpu-time-test: stage 3's region has changed"; exit 1; }
mkdir -p "$work/class/good/labs/$lab" "$work/class/chain/labs/$lab"
cp "$good" "$work/class/good/labs/$lab/$lab.cu"
BODY=$chain awk '$0 ~ "/\\* TODO stage 4 -" { hint = 1; on = 1 }
    on && hint { print; if (index($0, "*/")) { hint = 0; print ENVIRON["BODY"] } next }
    on && /END TODO/ { on = 0 }
    !on { print }' "$good" > "$work/class/chain/labs/$lab/$lab.cu"

t0=$(date +%s)
EMU=1 GPU_ARCH=$arch SEED=11 grading/grade.sh build/emu "$work/class" "$work/t1" "$lab" > "$work/t1.log" 2>&1 ||
    { cat "$work/t1.log"; fail "tier 1 failed"; exit 1; }
EMU=0 TIER1=$work/t1 SEED=11 grading/grade.sh build/emu "$work/class" "$work/t2" "$lab" > "$work/t2.log" 2>&1 ||
    { cat "$work/t2.log"; fail "tier 2 failed"; exit 1; }
echo "gpu-time-test: two tiers graded in $(($(date +%s) - t0)) s"

row() { score_awk -v s="$2" '$col["stage"] == s' "$1/$lab/score.tsv"; } # OUT STAGE: its row, for messages
cell() { score_awk -v s="$2" -v c="$3" '$col["stage"] == s { print $col[c] }' "$1/$lab/score.tsv"; } # OUT STAGE COLUMN: a field of it
# tier 1: the chain is bought, under the emulation
[ "$(cell "$work/t1/chain" 4 points)" = 1 ] ||
    fail "tier 1 did not give the chain stage 4's point, so the counts are not bought: $(row "$work/t1/chain" 4)"
# tier 2: every stage of the solution kept, timed
for s in 1 2 3 4; do
    if [ "$(cell "$work/t2/good" "$s" points)" != 1 ] ||
        [[ $(cell "$work/t2/good" "$s" why) != *"ms at n = 2^24, the reference solution"* ]]; then
        fail "the solution's stage $s, in tier 2: $(row "$work/t2/good" "$s")"
    fi
done
# ... and the chain's stage 4 taken back, flagged, said why
if [ "$(cell "$work/t2/chain" 4 points)" != 0 ] || [ "$(cell "$work/t2/chain" 4 technique)" != slow ] ||
    [[ $(cell "$work/t2/chain" 4 why) != *"does not show in its time"* ]]; then
    fail "the chain's stage 4 kept its point in tier 2, or lacks its reason: $(row "$work/t2/chain" 4)"
fi
grep -q 'scan-large-arrays 4 (slow on the GPU: review)' "$work/t2/grades.csv" ||
    fail "grades.csv does not flag the chain's stage 4: $(cat "$work/t2/grades.csv")"
for s in 1 2 3; do
    [ "$(cell "$work/t2/chain" "$s" points)" = 1 ] || fail "the chain's stage $s: $(row "$work/t2/chain" "$s")"
done
[ $status = 0 ] && { echo "gpu-time-test: passed"; score_awk -v OFS='\t' '$col["stage"] == 4 {
    print $col["stage"], $col["points"], $col["max"], $col["why"], $col["technique"] }' "$work"/t2/*/"$lab"/score.tsv; }
exit $status
