#!/usr/bin/env bash
# dist-test.sh: the student copy (make dist) as a student gets it. It holds
# no solution, answer, grader or mutant; its make check passes; make test
# fails on the untouched skeleton, and passes once map's TODOs hold the
# solution's code; what is for instructors refuses with one clear line.
# Runs under EMU=1 where there is no GPU; about 3 minutes on 2 cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "dist-test: $*"; status=1; }

make --no-print-directory dist DIST="$tmp" > /dev/null || exit 1
mkdir "$tmp/unpacked" && tar -xzf "$tmp/gpu-workbook.tar.gz" -C "$tmp/unpacked" || exit 1
copy=$tmp/unpacked/gpu-workbook
for kept in solutions grading authoring tests/mutants tests/grade; do
    [ ! -e "$copy/$kept" ] || fail "the copy holds $kept"
done
leaks=$(grep -rlE '/\* (END )?STUDENT' --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' "$copy" | head -3)
[ -z "$leaks" ] || fail "the copy holds solution code: $leaks"
[ -z "$(find "$copy" -name ANSWERS.md)" ] || fail "the copy holds model answers"
grep -q '^## Instructors' "$copy/README.md" && fail "the copy's README keeps the instructors' part"

cd "$copy" || exit 1
make --no-print-directory check > "$tmp/check.log" 2>&1 ||
    { tail -20 "$tmp/check.log"; fail "make check fails in the student copy"; }
grep -q 'check: all is in place' "$tmp/check.log" || fail "make check in the copy did not finish"
bins=build/emu/labs # what make check built: the emulated labs, or on a GPU nvcc's
[ -d "$bins" ] || bins=build/labs
labs=()
for lab in labs/*/; do lab=${lab%/} labs+=("${lab#labs/}"); done
stages=$("$OLDPWD/tests/grade/stages.sh" "$bins" "${labs[@]}")
[ "$(grep -c 'autograding-command-grader' .github/workflows/classroom.yml)" = "$stages" ] ||
    fail "the Classroom workflow does not have a test for each of the $stages stages"
if make --no-print-directory test LAB=map SEED=1 > "$tmp/skeleton.log" 2>&1; then
    fail "make test LAB=map passes on the untouched skeleton"
fi
awk -v all="$("$OLDPWD/tests/grade/stages.sh" "$bins" map)" '
    /^  stage / { match($0, /[0-9]+ of +[0-9]+ passed/); split(substr($0, RSTART, RLENGTH), f, " +")
                  stages++; failing += f[1] < f[3] } END { exit !(stages == all && failing == all) }' \
    "$tmp/skeleton.log" || fail "make test LAB=map on the skeleton: not every stage failed"
# map done as a student would: the solution's code in the TODO regions
"$OLDPWD/tests/grade/handed-in.sh" map > "$tmp/map.cu" && cp "$tmp/map.cu" labs/map/map.cu
make --no-print-directory test LAB=map SEED=1 FORMAT=junit > "$tmp/done.log" 2>&1 ||
    { tail -20 "$tmp/done.log"; fail "make test LAB=map fails on a finished map"; }
grep -qs "<testsuites" build/reports/map.xml build/emu/reports/map.xml || fail "make test FORMAT=junit wrote no JUnit report"
make --no-print-directory grade SUBMISSIONS=. 2>&1 | grep -q 'what is for instructors' ||
    fail "make grade in the student copy does not say it is for instructors"
[ $status = 0 ] && echo "dist-test: the student copy has no solutions, builds, checks, fails until done and passes when done"
exit $status
