#!/usr/bin/env bash
# slurm-test.sh: make check-grade-slurm. Starts a Slurm cluster of one node
# on this machine (tests/grade/slurm-cluster.sh), grades the hostile class
# of tests/grade/grade-test.sh (CLASS=sandbox) through it with a task
# cancelled at once, checks that the cancelled task's submissions read "not
# graded" (never 0) and that a second run refuses to grade over them, then
# resumes; the grades must equal make grade's on this machine for the same
# seed. Stops the cluster by its process ids and checks that nothing of it
# runs. Under EMU=1 unless EMU=0 is given (on a GPU).
set -u
cd "$(dirname "$0")/../.." || exit 1
emu=${EMU:-1}
say() { echo "slurm-test: $*"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-test.XXXXXX") && chmod 755 "$work" || exit 1
cluster=$work/cluster
trap 'tests/grade/slurm-cluster.sh stop "$cluster" > /dev/null 2>&1; rm -rf "$work"' EXIT
# first, so that a machine without Slurm is told at once (make deps-slurm)
setup=$(tests/grade/slurm-cluster.sh start "$cluster") || { say "the cluster did not start"; exit 1; }
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
grade() { make --no-print-directory grade SUBMISSIONS="$work/class" LAB=map EMU="$emu" "$@"; }

say "one machine: make grade, $n submissions"
grade OUT="$work/local" > "$work/local.log" 2>&1 || { cat "$work/local.log"; say "make grade failed"; exit 1; }
status=0
fail() { say "$*"; status=1; }

# Slurm, the second of four tasks cancelled as soon as it is submitted
TASKS=4 WAIT=0 grade SCHEDULER=slurm OUT="$work/slurm" > "$work/slurm.log" 2>&1 ||
    { cat "$work/slurm.log"; say "make grade SCHEDULER=slurm failed"; exit 1; }
array=$(sed -n 's/.*job array \([0-9]*\) .*/\1/p' "$work/slurm/.slurm/jobs" | tail -n 1)
gather=$(sed -n 's/.*gathered by job \([0-9]*\).*/\1/p' "$work/slurm/.slurm/jobs" | tail -n 1)
scancel "${array}_2"
for _ in $(seq 600); do squeue -h -j "$gather" 2> /dev/null | grep -q . || break; sleep 1; done
squeue -h -j "$gather" 2> /dev/null | grep -q . && { fail "the gathering job $gather did not end in 10 min"; exit 1; }
cancelled=$(tr -cd '\0' < "$work/slurm/.slurm/run-1/slice-2" | wc -c)
not=$(grep -c ',not graded,' "$work/slurm/grades.csv")
if [ "$not" = "$cancelled" ] && [ "$not" -gt 0 ]; then
    say "the cancelled task's $not submissions read 'not graded' in grades.csv, the others are graded"
else
    fail "grades.csv has $not 'not graded' rows; the cancelled task held $cancelled submissions"
fi
[ "$(grep -c ': not graded$' "$work/slurm/summary.md")" = "$cancelled" ] ||
    fail "summary.md does not say 'not graded' for each of the $cancelled"
if grade SCHEDULER=slurm OUT="$work/slurm" > "$work/again.log" 2>&1; then
    fail "a second run graded over the first"
else
    if grep -q 'RESUME=1 grades the' "$work/again.log"; then say "a second run refuses, naming RESUME=1"
    else fail "a second run failed otherwise: $(cat "$work/again.log")"; fi
fi
RESUME=1 grade SCHEDULER=slurm OUT="$work/slurm" > "$work/resume.log" 2>&1 ||
    { cat "$work/resume.log"; fail "RESUME=1 did not grade them all"; }
if grep -q "graded $cancelled, running 0, pending 0 of $cancelled" "$work/resume.log"; then
    say "RESUME=1 graded the $cancelled again, and only them"
else
    fail "RESUME=1 graded more or fewer: $(tail -n 3 "$work/resume.log")"
fi

# the same grades as on one machine
cmp -s "$work/local/grades.csv" "$work/slurm/grades.csv" || fail "grades.csv differs: $(diff "$work/local/grades.csv" "$work/slurm/grades.csv")"
same=0
for d in "$work/local"/*/; do
    name=$(basename "$d")
    if cmp -s "$d/map/score.tsv" "$work/slurm/$name/map/score.tsv"; then same=$((same + 1))
    else fail "$name is graded otherwise through Slurm: $(diff "$d/map/score.tsv" "$work/slurm/$name/map/score.tsv")"; fi
done
[ "$same" = "$n" ] && say "all $n submissions' scores, and grades.csv, equal make grade's on one machine (seed $SEED)"

# nothing left running
pids=$(cat "$cluster"/*.pid 2> /dev/null)
tests/grade/slurm-cluster.sh stop "$cluster" || fail "the cluster did not stop cleanly"
for pid in $pids; do kill -0 "$pid" 2> /dev/null && fail "process $pid of the cluster still runs"; done
pgrep -f "$cluster/" > /dev/null && fail "a process started from $cluster still runs: $(pgrep -af "$cluster/")"
[ $status = 0 ] && say "the cluster is stopped, nothing of it runs"
exit $status
