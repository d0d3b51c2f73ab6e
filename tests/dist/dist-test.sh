#!/usr/bin/env bash
# dist-test.sh: the student copy (make dist) as a student gets it. It holds
# no solution, answer, grader, notebook or mutant, and no line of a solution
# where a student would read it before doing that stage (authoring/leaks.sh,
# whatever the file); its make check passes; make test fails on the
# untouched skeleton, and passes once map's TODOs hold the solution's code;
# what is for instructors refuses with one clear line; README's list of what
# later labs give away is what leaks.sh -s finds. A copy of the first
# three labs (make dist LABS=map,reduce,histogram) holds those alone, no
# line of their solutions at all, and its make check passes. And the leak
# scan can fail: solution lines planted in a .patch, a .md, a .txt
# (re-indented), a .svg (as HTML writes it) and a .gz are each reported. A
# copy made with HINTS=goal has no Hint paragraph and none of the formulas
# the solutions' comments mark {full|goal}. Runs under EMU=1 where there is no
# GPU; about 45 seconds on 2 cores once the skeletons are built.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "dist-test: $*"; status=1; }
show() { head -n 20 "$1"; [ "$(wc -l < "$1")" -le 20 ] || { echo "..."; tail -n 1 "$1"; }; } # a long report, cut

make --no-print-directory dist DIST="$tmp" > /dev/null || exit 1
mkdir "$tmp/unpacked" && tar -xzf "$tmp/gpu-workbook.tar.gz" -C "$tmp/unpacked" || exit 1
copy=$tmp/unpacked/gpu-workbook
for kept in solutions grading authoring notebook tests/mutants tests/grade; do
    [ ! -e "$copy/$kept" ] || fail "the copy holds $kept"
done
leaks=$(grep -rlE '/\* (END )?STUDENT' --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' "$copy" | head -3)
[ -z "$leaks" ] || fail "the copy holds solution code: $leaks"
[ -z "$(find "$copy" -name ANSWERS.md)" ] || fail "the copy holds model answers"
grep -q '^## Instructors' "$copy/README.md" && fail "the copy's README keeps the instructors' part"
authoring/leaks.sh "$copy" > "$tmp/leaks.log" 2>&1 ||
    { show "$tmp/leaks.log"; fail "the copy gives away solution lines (authoring/leaks.sh)"; }
# README's list of what later labs give away is what the scan finds now.
awk '/^<!-- leaks.sh -s -->$/ { on = 1; next } on && /^```text$/ { next } on && /^```$/ { exit } on' \
    README.md > "$tmp/readme-gives"
authoring/leaks.sh -s "$copy" | diff "$tmp/readme-gives" - > "$tmp/gives.diff" ||
    { cat "$tmp/gives.diff"; fail "README's list of what later labs give away differs from authoring/leaks.sh -s"; }

# The first three labs alone: nothing of the others, no leak, a make check
# that passes, and help, the handouts' index and the Classroom workflow
# that name those labs alone.
make --no-print-directory dist DIST="$tmp/bad" LABS=map,nope 2>&1 | grep -q "nope is not a lab; the labs, in course order: map,reduce," ||
    fail "make dist LABS=map,nope does not name the labs"
make --no-print-directory dist DIST="$tmp/part" LABS=map,reduce,histogram > /dev/null || exit 1
part=$tmp/part/gpu-workbook
[ "$(cd "$part/labs" && echo *)" = "histogram map reduce" ] || fail "LABS=map,reduce,histogram: labs/ holds $(cd "$part/labs" && echo *)"
for gone in spec/scan-HS tests/scan-HS spec/scan spec/radix tests/radix handouts/04-scan-HS.md handouts/09-transpose.md common/collectives.cuh common/lookback.cuh; do
    [ ! -e "$part/$gone" ] || fail "LABS=map,reduce,histogram: the copy holds $gone"
done
[ -e "$part/handouts/00-introduction.md" ] || fail "LABS=map,reduce,histogram: the copy lacks the introduction"
# none of its lines at all: no later lab of it may answer an earlier one's TODO
if ! authoring/leaks.sh -v "$part" > "$tmp/part-leaks.log" 2>&1 || grep -qv '^leaks: none' "$tmp/part-leaks.log"; then
    show "$tmp/part-leaks.log"; fail "LABS=map,reduce,histogram: the copy holds lines of its labs' solutions"
fi
[ "$(sed -n 's/.*make --no-print-directory test LAB=\([^ ]*\) .*/\1/p' "$part/.github/workflows/classroom.yml" | sort -u | paste -sd ' ')" = "histogram map reduce" ] ||
    fail "LABS=map,reduce,histogram: the Classroom workflow tests other labs"

# The scan fails on a line of a solution, however it is dressed: the
# longest with a < in it, planted in files of five kinds in that copy.
line=$(authoring/leaks.sh -l "$part" | awk -F '\t' 'index($3, "<") && length($3) > length(best) { best = $3 } END { print best }')
printf -- '--- a/x.cu\n+++ b/x.cu\n@@ -1 +1 @@\n+\t%s\n' "$line" > "$part/results/planted.patch"
printf "# notes\n\n\`\`\`cuda\n    %s\n\`\`\`\n" "$line" > "$part/handouts/planted.md"
printf '%s\n' "$line" | sed 's/ /  \t /g; s/^/\t\t/' > "$part/planted.txt"
printf '<svg><text>%s</text></svg>\n' "$(printf '%s' "$line" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')" > "$part/results/planted.svg"
printf 'x\n%s\n' "$line" | gzip > "$part/results/planted.csv.gz"
authoring/leaks.sh "$part" > "$tmp/planted.log" 2>&1 && fail "leaks.sh passes a copy with planted solution lines"
for planted in results/planted.patch:4 handouts/planted.md:4 planted.txt:1 results/planted.svg:1 results/planted.csv.gz:2; do
    grep -qF "$planted: " "$tmp/planted.log" || fail "leaks.sh misses the solution line planted in $planted ($line)"
done
grep -q "^leaks: 5 solution lines where none may be" "$tmp/planted.log" ||
    { show "$tmp/planted.log"; fail "leaks.sh reports more than the five planted lines"; }
rm "$part"/results/planted.* "$part"/handouts/planted.md "$part"/planted.txt

(cd "$part" && make --no-print-directory check > "$tmp/part-check.log" 2>&1) ||
    { tail -20 "$tmp/part-check.log"; fail "LABS=map,reduce,histogram: make check fails in the copy"; }
grep -q 'check: built every lab: map reduce histogram$' "$tmp/part-check.log" || fail "LABS=map,reduce,histogram: make check built other labs"
help=$(make -C "$part" --no-print-directory help)
grep -q '^gpu-workbook: labs map reduce histogram (to come: scan-HS .* transpose)$' <<< "$help" ||
    fail "LABS=map,reduce,histogram: make help does not name the labs to come"
if [ -f "$part/build/emu/handouts/index.html" ] || [ -f "$part/build/handouts/index.html" ]; then
    index=$(cat "$part"/build/emu/handouts/index.html "$part"/build/handouts/index.html 2> /dev/null)
    if ! grep -q 03-histogram.html <<< "$index" || grep -q 04-scan-HS.html <<< "$index"; then
        fail "LABS=map,reduce,histogram: the handouts' index does not list the first three labs alone"
    fi
fi

# HINTS=goal: the TODO comments keep Goal and Keep, drop every Hint, and
# say none of the formulas marked {full|goal} in the solutions' comments.
make --no-print-directory dist DIST="$tmp/goal" HINTS=goal > /dev/null || exit 1
goal=$tmp/goal/gpu-workbook
hints=$(grep -rlE '^[[:space:]]*\*[[:space:]]*Hint:' "$goal/labs" | head -3)
[ -z "$hints" ] || fail "HINTS=goal: the copy holds Hint paragraphs: $hints"
grep -rhoE '\{[^{}|]+\|' solutions/*/*.cu | sed 's/^{[:,]* *//; s/|$//' | sort -u > "$tmp/marked"
[ -s "$tmp/marked" ] || fail "HINTS=goal: the solutions mark no formula"
marked=$(grep -rlF -f "$tmp/marked" "$goal/labs" | head -3)
[ -z "$marked" ] || fail "HINTS=goal: the copy states a marked formula: $marked"
grep -rqF -f "$tmp/marked" "$copy/labs" || fail "HINTS=full: the copy states none of the marked formulas"
grep -rqE '\{[^{}|]*\|[^{}|]*\}' "$goal/labs" "$copy/labs" && fail "a copy holds a {full|goal} mark"
# ... and a file handed in from it has the grader's frame: its shorter
# hints are no change outside the TODO regions (grading/splice.awk)
for skeleton in labs/*/*.cu; do
    cmp -s "$skeleton" "$goal/$skeleton" || [ -z "$(diff <(awk -v frame=1 -f grading/splice.awk "$skeleton" "$skeleton") \
        <(awk -v frame=1 -f grading/splice.awk "$skeleton" "$goal/$skeleton"))" ] ||
        fail "HINTS=goal: the grader sees $skeleton's frame changed in the goal copy"
done

cd "$copy" || exit 1
make --no-print-directory check > "$tmp/check.log" 2>&1 ||
    { tail -20 "$tmp/check.log"; fail "make check fails in the student copy"; }
grep -q 'check: all is in place' "$tmp/check.log" || fail "make check in the copy did not finish"
bins=build/emu/labs # what make check built: the emulated labs, or on a GPU nvcc's
[ -d "$bins" ] || bins=build/labs
labs=()
for lab in labs/*/; do lab=${lab%/} labs+=("${lab#labs/}"); done
stages=$("$root/tests/grade/stages.sh" "$bins" "${labs[@]}")
[ "$(grep -c 'autograding-command-grader' .github/workflows/classroom.yml)" = "$stages" ] ||
    fail "the Classroom workflow does not have a test for each of the $stages stages"
if make --no-print-directory test LAB=map SEED=1 > "$tmp/skeleton.log" 2>&1; then
    fail "make test LAB=map passes on the untouched skeleton"
fi
awk -v all="$("$root/tests/grade/stages.sh" "$bins" map)" '
    /^  stage / { match($0, /[0-9]+ of +[0-9]+ passed/); split(substr($0, RSTART, RLENGTH), f, " +")
                  stages++; failing += f[1] < f[3] } END { exit !(stages == all && failing == all) }' \
    "$tmp/skeleton.log" || fail "make test LAB=map on the skeleton: not every stage failed"
# map done as a student would: the solution's code in the TODO regions
"$root/tests/grade/handed-in.sh" map > "$tmp/map.cu" && cp "$tmp/map.cu" labs/map/map.cu
make --no-print-directory test LAB=map SEED=1 FORMAT=junit > "$tmp/done.log" 2>&1 ||
    { tail -20 "$tmp/done.log"; fail "make test LAB=map fails on a finished map"; }
grep -qs "<testsuites" build/reports/map.xml build/emu/reports/map.xml || fail "make test FORMAT=junit wrote no JUnit report"
make --no-print-directory grade SUBMISSIONS=. 2>&1 | grep -q 'what is for instructors' ||
    fail "make grade in the student copy does not say it is for instructors"
[ $status = 0 ] && echo "dist-test: the student copy has no solutions, leaks no answer, builds, checks, fails until done and passes when done; a copy of three labs holds them alone"
exit $status
