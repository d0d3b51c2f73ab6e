#!/usr/bin/env bash
# dist.sh DIR BINS LAB...: the student copy, from the committed tree, as
# DIR/gpu-workbook/ and DIR/gpu-workbook.tar.gz. It holds what a student
# works with (labs/, handouts/, the harness, the tests, results/) and none
# of what the instructor keeps, each in a folder of its own: solutions/ and
# their model answers, grading/ (the grader), authoring/ (what makes and
# proves the kit, the Makefile's instructors' part included), notebook/
# (experiments and runs: kernels of the graded stages, patches of them), the
# tests of those (tests/grade, tests/mutants: lines of the solutions,
# tests/bench, tests/dist, tests/handouts) and this repository's CI.
# README.md loses what lies between <!-- instructors --> and
# <!-- /instructors --> lines.
# It gets .github/workflows/classroom.yml (grading/classroom.sh, from the
# skeletons' drivers in BINS), so that it can serve as a GitHub Classroom
# template as it is.
set -eu
dir=$1 bins=$2 name=gpu-workbook
shift 2
mkdir -p "$dir" && rm -rf "${dir:?}/$name" "$dir/$name.tar.gz" && mkdir "$dir/$name"
git archive --format=tar HEAD | tar -x -C "$dir/$name"
[ -z "$(git status --porcelain -- . ':!results' 2> /dev/null)" ] ||
    echo "dist: this checkout has uncommitted changes; the copy holds the committed tree ($(git rev-parse --short HEAD))"
mkdir -p "$dir/$name/.github/workflows"
grading/classroom.sh grading/weights.txt "$bins" "$@" > "$dir/$name/.github/workflows/classroom.yml"
cd "$dir/$name"
rm -rf solutions grading authoring notebook .ci tests/grade tests/mutants tests/bench tests/dist tests/handouts
awk '/^<!-- instructors -->$/ { skip = 1; next } /^<!-- \/instructors -->$/ { skip = 0; next } !skip' \
    README.md > README.tmp && mv README.tmp README.md
cd .. && tar -czf "$name.tar.gz" "$name"
echo "dist: $dir/$name.tar.gz (and unpacked, $dir/$name/): $(find "$name" -type f | wc -l) files, no solutions"
