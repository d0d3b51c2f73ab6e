#!/usr/bin/env bash
# inputs-test.sh: what make grade is given, besides the code: the names of
# the submission folders, the reasons it writes, SUBMISSIONS itself. None
# may forge a line of the reports, break their formats, or stand where a
# class file goes. Under EMU=1, no GPU needed; about a minute on 2 cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/inputs.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "inputs-test: $*"; status=1; }
has_control() { LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n\t' < "$1"); }

# The reports from a score.tsv whose reason holds control characters: the
# JSON and the XML stay valid, and no raw control character reaches a report.
fake=$tmp/fake
mkdir -p "$fake/s/map" && echo s > "$fake/.graded" && echo s > "$fake/s/.name" && echo "Graded." > "$fake/.how"
printf 'map\t1\t0\t1\tbell\a esc\033[2J ff\f cr\r del\177 nul-free\001 end\t-\n' > "$fake/s/map/score.tsv"
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

[ $status = 0 ] && echo "inputs-test: no name, reason or SUBMISSIONS fooled the grader"
exit $status
