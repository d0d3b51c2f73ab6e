#!/usr/bin/env bash
# classroom.sh WEIGHTS BINS LAB...: a GitHub Classroom autograding workflow
# for the student copy (make dist writes it to .github/workflows/classroom.yml):
# on every push, each stage of each lab is one test, `make test LAB=x
# STAGE=n` under the CPU emulation, worth its points in WEIGHTS (else 1).
# The stages are the ones each skeleton's driver names (BINS/LAB/run
# list=stages).
#
# It runs in the student's own repository, which the student controls, so
# its scores are feedback, not grades: grade with make grade.
set -eu
weights=$1 bins=$2
shift 2
for lab in "$@"; do # a workflow without a lab's tests would pass it unseen
    [ -n "$("$bins/$lab/run" list=stages)" ] ||
        { echo "classroom: $bins/$lab/run names no stages" >&2; exit 1; }
done
steps() { # LAB: "lab id points" for each stage of the lab's table
    "$bins/$1/run" list=stages | cut -f1 | while read -r id; do
        p=$(awk -v l="$1" -v s="$id" '$1 == l && $2 == s { print $3 }' "$weights" 2> /dev/null)
        echo "$1 $id ${p:-1}"
    done
}
all=$(for lab in "$@"; do steps "$lab"; done)
cat <<'YAML'
# GitHub Classroom autograding, written by make dist (grading/classroom.sh):
# a test a stage, run on the CPU emulation (no GPU on GitHub's runners).
# Students control this repository, so these scores are feedback; an
# instructor grades with make grade on the cloned submissions.
name: Autograding Tests
'on': [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Install Criterion (make deps)
        run: make deps
YAML
echo "$all" | while read -r lab id points; do
    cat <<YAML
      - name: $lab stage $id
        id: $lab-$id
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: $lab stage $id
          command: make --no-print-directory test LAB=$lab STAGE=$id EMU=1
          timeout: 10
          max-score: $points
YAML
done
echo "      - name: Autograding Reporter"
echo "        uses: classroom-resources/autograding-grading-reporter@v1"
echo "        env:"
echo "$all" | while read -r lab id _; do
    id_upper=$(printf '%s-%s' "$lab" "$id" | tr '[:lower:]' '[:upper:]')
    echo "          ${id_upper}_RESULTS: \"\${{steps.$lab-$id.outputs.result}}\""
done
echo "        with:"
echo "          runners: $(echo "$all" | awk '{ printf "%s%s-%s", (NR > 1 ? "," : ""), $1, $2 }')"
