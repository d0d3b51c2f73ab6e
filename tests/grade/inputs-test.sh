#!/usr/bin/env bash
# inputs-test.sh: what make grade is given, besides the code: the names of
# the submission folders, the reasons it writes, SUBMISSIONS itself. None
# may forge a line of the reports, break their formats, or stand where a
# class file goes. And what make test is given: N, BLOCK and SEED, read as
# make run reads them; and make run's reproduce lines, which name the kernels. Under EMU=1, no GPU needed; under a minute on 2
# cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/inputs.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "inputs-test: $*"; status=1; }
has_control() { LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n\t' < "$1"); }

# The reports from a score.tsv whose reason holds control characters and
# bytes that are no UTF-8: the JSON and the XML stay valid, and no raw
# control character reaches a report.
fake=$tmp/fake
mkdir -p "$fake/s/map" && echo s > "$fake/.graded" && echo s > "$fake/s/.name" && echo "Graded." > "$fake/.how"
{ score_header
  printf 'map\t1\t0\t1\tbell\a esc\033[2J ff\f cr\r del\177 nul-free\001 not-utf8\377\300 end\t-\n'
} > "$fake/s/map/score.tsv"
grading/grade-report.sh "$fake" map > "$tmp/report.log" 2>&1 || fail "grade-report.sh fails on a reason with control characters"
validators=""
if command -v python3 > /dev/null; then
    validators+=" python3"
    python3 -m json.tool "$fake/s/results.json" > /dev/null 2>&1 || fail "results.json is not JSON"
else
    validators+=" awk" # no raw control character, and every string closed on its line
    awk '/[\001-\037\177]/ { bad = 1 } { gsub(/\\./, ""); if (gsub(/"/, "") % 2) bad = 1 } END { exit bad }' \
        "$fake/s/results.json" ||
        fail "results.json is not JSON"
fi
if command -v xmllint > /dev/null; then
    validators+=" xmllint"
    xmllint --noout "$fake/junit.xml" 2> /dev/null || fail "junit.xml is not XML"
fi
for f in summary.md grades.csv junit.xml s/results.json; do
    has_control "$fake/$f" && fail "$f holds a raw control character"
done
[ $status = 0 ] && echo "inputs-test: reasons with control characters: valid JSON and XML (checked by$validators)"

# A class file that cannot be written (a folder stands there) fails the
# grading, naming it.
rm "$fake/junit.xml" && mkdir "$fake/junit.xml"
if grading/grade-report.sh "$fake" map > "$tmp/report.log" 2>&1 || ! grep -q "not written.*junit.xml" "$tmp/report.log"; then
    fail "a junit.xml that could not be written was not reported"
fi

# A class of skeletons, given as a link to its folder, one named with a
# newline that would start a heading of summary.md, two as files the
# grader writes in OUT.
class=$tmp/class forged=$'forged\n## forged: 6 of 6'
names=(plain "with space" "$forged" junit.xml .graded)
for name in "${names[@]}"; do
    mkdir -p "$class/$name/labs/map" && cp labs/map/map.cu "$class/$name/labs/map/"
done
ln -s class "$tmp/link"
SEED=7 JOBS=2 make --no-print-directory grade SUBMISSIONS="$tmp/link" OUT="$tmp/out" LAB=map EMU=1 \
    > "$tmp/grade.log" 2>&1 || { tail -5 "$tmp/grade.log"; fail "make grade fails on the class"; }
full=$(tests/grade/stages.sh build/emu/solutions map)
for name in "${names[@]//$'\n'/?}"; do
    grep -qxF "grade: $name: 0 of $full" "$tmp/grade.log" || fail "$name: not graded 0 of $full, as it should"
done
grep -qs '^## forged: 6 of 6' "$tmp/grade.log" "$tmp/out/summary.md" "$tmp/out/grades.csv" &&
    fail "a name with a newline forged a line"
for f in summary.md grades.csv junit.xml; do
    if [ ! -f "$tmp/out/$f" ] || has_control "$tmp/out/$f"; then fail "$f is missing or holds a raw control character"; fi
done
if [ "$(grep -cs '<testsuite ' "$tmp/out/junit.xml")" != ${#names[@]} ] ||
   [ "$(wc -l 2> /dev/null < "$tmp/out/grades.csv")" != $((${#names[@]} + 1)) ]; then
    fail "junit.xml or grades.csv does not hold every submission"
fi

# SUBMISSIONS holding no submission folder: empty, it only prepares the
# judges (as Gradescope's setup does); holding something else, it fails.
mkdir "$tmp/empty" "$tmp/files" && cp labs/map/map.cu "$tmp/files/"
make --no-print-directory grade SUBMISSIONS="$tmp/empty" OUT="$tmp/out-empty" LAB=map EMU=1 > "$tmp/empty.log" 2>&1 ||
    fail "an empty SUBMISSIONS, to prepare the judges, fails"
if make --no-print-directory grade SUBMISSIONS="$tmp/files" OUT="$tmp/out-files" LAB=map EMU=1 > "$tmp/files.log" 2>&1 ||
   ! grep -q 'holds no submission folder' "$tmp/files.log"; then
    fail "a SUBMISSIONS of files alone was not refused"
fi
# an OUT inside it would be graded as a submission
if make --no-print-directory grade SUBMISSIONS="$tmp/link" OUT="$class/grades" LAB=map EMU=1 > "$tmp/inside.log" 2>&1 ||
   ! grep -q 'inside SUBMISSIONS' "$tmp/inside.log"; then
    fail "an OUT inside SUBMISSIONS was not refused"
fi

# The student's choices: make test refuses a mistake before any test runs,
# in the sentence make run refuses it in; good ones still work.
for choice in N=abc N=2^64 BLOCK=0 BLOCK=1025 SEED=-1; do
    run=$(make --no-print-directory run LAB=map EMU=1 "$choice" 2>&1 | grep '^error: ')
    make --no-print-directory test LAB=map EMU=1 "$choice" > "$tmp/test.log" 2>&1 && fail "make test $choice passes"
    said=$(grep '^error: ' "$tmp/test.log")
    if [ -z "$run" ] || [ "$said" != "$run" ] || grep -q '^  stage ' "$tmp/test.log"; then
        fail "$choice: make run says '${run:-nothing}', make test '${said:-nothing}'$(grep -q '^  stage ' \
            "$tmp/test.log" && echo ' after its tests')"
    fi
done
make --no-print-directory test LAB=map SOLUTION=1 EMU=1 STAGE=1 N=1000 BLOCK=128 SEED=5 > "$tmp/test.log" 2>&1 ||
    fail "make test with good choices fails"
# A reproduce line names whose kernels failed, from make run as from make
# test: here a copy of the untouched map skeleton, given as SUBMISSION=.
mkdir -p "$tmp/sub/labs" && cp -r labs/map "$tmp/sub/labs/"
make --no-print-directory run LAB=map SUBMISSION="$tmp/sub" EMU=1 STAGE=1 N=1000 SEED=5 > "$tmp/run.log" 2>&1
grep -qF "reproduce: make test LAB=map STAGE=1 SEED=5 EMU=1 SUBMISSION='$tmp/sub'" "$tmp/run.log" ||
    fail "make run SUBMISSION=: the reproduce line does not name the submission"

[ $status = 0 ] && echo "inputs-test: no name, reason or SUBMISSIONS fooled the grader; make test reads N, BLOCK and SEED as make run does; make run's reproduce lines name the submission"
exit $status
