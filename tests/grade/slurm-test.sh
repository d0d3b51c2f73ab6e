#!/usr/bin/env bash
# slurm-test.sh: make check-grade-slurm. Starts a Slurm cluster of one node,
# with a GPU as a generic resource, on this machine
# (tests/grade/slurm-cluster.sh), and grades the hostile class of
# tests/grade/grade-test.sh (CLASS=sandbox) through it:
# - in one tier, four of the class (not the hung ones): the grades must
#   equal make grade's on this machine for the same seed;
# - in two, with a tier-1 task cancelled at once: its submissions read "not
#   graded" (never 0), its tier-2 task never runs, a second run refuses to
#   grade over them, RESUME=1 grades them alone; tier 2 runs the stages that
#   scored in tier 1, and no other, and changes no grade (all equal make
#   grade's). Without a GPU here tier 2 runs the emulated build
#   (GPU_ARCH=emu): Slurm, the dependencies and the grader are real, the
#   GPU is not;
# - tier 2 directly: a stage right in tier 1 and wrong in tier 2 fails, and
#   a spent GPU budget fails what it leaves unrun.
# Stops the cluster by its process ids and checks that nothing of it runs.
# Tier 1 and the one-machine grading under EMU=1 unless EMU=0 is given.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
emu=${EMU:-1}
say() { echo "slurm-test: $*"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-test.XXXXXX") && chmod 755 "$work" || exit 1
cluster=$work/cluster
trap 'tests/grade/slurm-cluster.sh stop "$cluster" > /dev/null 2>&1; rm -rf "$work"' EXIT
# first, so that a machine without Slurm is told at once (make deps-slurm)
# a GPU, and four times the CPUs: the jobs mostly wait (Slurm, a hung stage)
setup=$(tests/grade/slurm-cluster.sh start "$cluster" 1 $((4 * $(nproc)))) || { say "the cluster did not start"; exit 1; }
eval "$setup"
say "a one-node Slurm is up ($(sinfo -h -o '%P %D %c' | paste -s -d' '))"
# the class, and the limits and seed grade-test.sh grades it with
if ! { mkdir "$work/class" && settings=$(CLASS=sandbox CLASS_ONLY=$work/class tests/grade/grade-test.sh); }; then
    say "the class could not be written"
    exit 1
fi
# shellcheck disable=SC2086,SC2163 # NAME=VALUE words, each exported
export $settings
n=$(find "$work/class" -mindepth 1 -maxdepth 1 -type d | wc -l)
# shellcheck source=grading/names.sh
. grading/names.sh
grade() { make --no-print-directory grade SUBMISSIONS="$work/class" LAB=map EMU="$emu" "$@"; }

status=0
fail() { say "$*"; status=1; }
# the three gradings at once, for most of their time goes in waiting
# (Slurm's, and a hung stage's): on one machine; through Slurm in one tier;
# and in two, the second of four tier-1 tasks cancelled at once
say "$n submissions: make grade on one machine, and through Slurm in one tier and in two"
grade OUT="$work/local" > "$work/local.log" 2>&1 &
local_grade=$!
# (one tier on four of them, not the hung ones: its path differs from two
# tiers' only in what it gathers)
mkdir "$work/four" && for sub in "good one" skeleton crashes-2 talks; do cp -r "$work/class/$sub" "$work/four/"; done
TASKS=2 WAIT=0 make --no-print-directory grade SUBMISSIONS="$work/four" LAB=map EMU="$emu" SCHEDULER=slurm \
    OUT="$work/slurm1" > "$work/slurm1.log" 2>&1 ||
    { cat "$work/slurm1.log"; say "make grade SCHEDULER=slurm failed"; exit 1; }
gpu_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d .)
: "${gpu_arch:=emu}"
two() { TASKS=4 GPU_PARTITION=gpu GPU_ARCH=$gpu_arch grade SCHEDULER=slurm OUT="$work/slurm2"; }
WAIT=0 two > "$work/slurm2.log" 2>&1 || { cat "$work/slurm2.log"; say "make grade SCHEDULER=slurm GPU_PARTITION=gpu failed"; exit 1; }
job() { sed -n "s/.*$2 \([0-9]*\).*/\1/p" "$work/$1/.slurm/jobs" | tail -n 1; } # OUT, the words before its id
scancel "$(job slurm2 'job array')_2"
wait "$local_grade" || { cat "$work/local.log"; say "make grade failed"; exit 1; }
for out in slurm1 slurm2; do
    gather=$(job $out 'gathered by job')
    for _ in $(seq 600); do squeue -h -j "$gather" 2> /dev/null | grep -q . || break; sleep 1; done
    squeue -h -j "$gather" 2> /dev/null | grep -q . && { fail "the gathering job $gather did not end in 10 min"; exit 1; }
done

# the grades of OUT $1 against the one machine's: score.tsv by score.tsv,
# less what tier 2 adds to a row it confirmed and where it was judged;
# $same: how many were the same
same_grades() {
    local d name
    same=0
    grep -vxFf "$work/local/grades.csv" "$1/grades.csv" > "$work/csv-diff" &&
        fail "$1: grades.csv has rows the one machine's has not: $(cat "$work/csv-diff")"
    for d in "$1"/*/; do
        name=$(basename "$d")
        [ "$name" = .slurm ] && continue
        if cmp -s <(bare "$work/local/$name/map/score.tsv") <(bare "$d/map/score.tsv"); then same=$((same + 1))
        else fail "$name is graded otherwise in $1: $(diff <(bare "$work/local/$name/map/score.tsv") <(bare "$d/map/score.tsv"))"; fi
    done
}
bare() {
    score_awk -v OFS='\t' '{ sub(/; right (on the GPU|in tier 2 [(]emulated, GPU_ARCH=emu[)]) too [(][0-9]+ cases in [0-9.]+ s[)]$/, "",
        $col["why"]); $col["judged"] = "-"; print }' "$1" 2> /dev/null
}

same_grades "$work/slurm1"
[ "$same" = 4 ] &&
    say "in one tier, the 4 submissions' scores and grades.csv rows equal make grade's on one machine (seed $SEED)"

cancelled=$(tr -cd '\0' < "$work/slurm2/.slurm/run-1/slice-2" | wc -c)
not=$(grep -c ',not graded,' "$work/slurm2/grades.csv")
if [ "$not" = "$cancelled" ] && [ "$not" -gt 0 ]; then
    say "two tiers: the cancelled task's $not submissions read 'not graded' in grades.csv, the others are graded"
else
    fail "grades.csv has $not 'not graded' rows; the cancelled task held $cancelled submissions"
fi
[ "$(grep -c ': not graded$' "$work/slurm2/summary.md")" = "$cancelled" ] ||
    fail "summary.md does not say 'not graded' for each of the $cancelled"
[ ! -e "$work/slurm2/.slurm/run-1/logs/gpu-2.log" ] || fail "tier-2 task 2 ran, though tier-1 task 2 was cancelled"
if two > "$work/again.log" 2>&1; then
    fail "a second run graded over the first"
else
    if grep -q 'RESUME=1 grades the' "$work/again.log"; then say "a second run refuses, naming RESUME=1"
    else fail "a second run failed otherwise: $(cat "$work/again.log")"; fi
fi
RESUME=1 two > "$work/resume.log" 2>&1 || { cat "$work/resume.log"; fail "RESUME=1 did not grade them all"; }
if grep -q "graded $cancelled, running 0, pending 0 of $cancelled" "$work/resume.log"; then
    say "RESUME=1 graded the $cancelled again, and only them"
else
    fail "RESUME=1 graded more or fewer: $(tail -n 3 "$work/resume.log")"
fi
same_grades "$work/slurm2"
[ "$same" = "$n" ] &&
    say "in two tiers, all $n submissions' scores and grades.csv rows equal make grade's on one machine"
# tier 2 ran what scored in tier 1, and nothing else
scored=$(score_awk '$col["points"] > 0' "$work/local"/*/map/score.tsv | wc -l)
confirmed=$(score_awk '{ print $col["why"] }' "$work/slurm2"/*/map/score.tsv | grep -c -E '; right (on the GPU|in tier 2 .*) too [(]')
ran=$(cat "$work/slurm2"/*/map/gpu-run.log 2> /dev/null | grep -c -E '^map stage [^ ]+ .*: ran$')
if [ "$confirmed" = "$scored" ] && [ "$scored" -gt 0 ]; then
    say "tier 2 judged again the $scored stages that scored in tier 1 ($ran runs of a case), and no other"
else
    fail "tier 2 confirmed $confirmed stages; $scored scored in tier 1"
fi
grep -q 'judged on' "$work/slurm2/summary.md" || fail "summary.md does not say where each stage was judged"

# Tier 2 directly, on the good submission: a stage right in tier 1 and
# wrong in tier 2, and a budget that runs out
direct() { # OUT [VAR=VALUE...]: grade.sh as a Slurm task calls it
    local to=$1
    shift
    env SEED="$SEED" "$@" grading/grade.sh build/emu "$work/good" "$to" map > "$to.log" 2>&1 ||
        { cat "$to.log"; fail "grade.sh $* failed"; }
}
mkdir -p "$work/good" && cp -r "$work/class/good one" "$work/good/"
direct "$work/t1" EMU=1 GPU_ARCH=emu
good=$(out_name "good one")
cp build/emu/pristine/build/emu/labs/map/run "$work/t1/$good/map/gpu.run" # the skeleton's: every output poison
direct "$work/t2" EMU=1 TIER1="$work/t1"
if score_awk '{ print $col["why"] }' "$work/t2/$good/map/score.tsv" |
        grep -q 'right under the emulation, but in tier 2 .* cases wrong' &&
        [ "$(score_awk '{ t += $col["points"] } END { print t + 0 }' "$work/t2/$good/map/score.tsv")" = 0 ]; then
    say "a stage right in tier 1 and wrong in tier 2 scores 0, saying so"
else
    fail "tier 2's wrong outputs did not fail the stages: $(cat "$work/t2/$good/map/score.tsv")"
fi
direct "$work/t1" EMU=1 GPU_ARCH=emu
direct "$work/t3" EMU=1 TIER1="$work/t1" GPU_SECONDS=1
if score_awk '{ print $col["why"] }' "$work/t3/$good/map/score.tsv" |
        grep -q "not run in tier 2 .*: the submission's GPU budget of 1 s was spent"; then
    say "a spent GPU budget fails the stages left unrun, saying so"
else
    fail "a spent GPU budget did not show: $(cat "$work/t3/$good/map/score.tsv")"
fi

# nothing left running
pids=$(cat "$cluster"/*.pid 2> /dev/null)
tests/grade/slurm-cluster.sh stop "$cluster" || fail "the cluster did not stop cleanly"
for pid in $pids; do kill -0 "$pid" 2> /dev/null && fail "process $pid of the cluster still runs"; done
pgrep -f "$cluster/" > /dev/null && fail "a process started from $cluster still runs: $(pgrep -af "$cluster/")"
[ $status = 0 ] && say "the cluster is stopped, nothing of it runs"
exit $status
