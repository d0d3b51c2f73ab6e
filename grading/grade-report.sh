#!/usr/bin/env bash
# grade-report.sh OUT LAB...: the class's grades, for the submissions
# OUT/.graded names (this run's, folder names without spaces), from
# OUT/<name>/<lab>/score.tsv (grading/score-tsv.sh): OUT/grades.csv, one row a
# submission, with the stages whose outputs were right but whose kernels
# lack their idea,
# OUT/summary.md for the instructor, OUT/junit.xml for CI (a test suite a
# submission, a test case a stage), and OUT/<name>/results.json in
# Gradescope's autograder format (a test a stage). Fails, naming it, if a
# file it should write is not there afterwards.
set -u
# shellcheck source=grading/score-tsv.sh
. "$(dirname "$0")/score-tsv.sh"
out=$1
shift
csv=$out/grades.csv md=$out/summary.md xml=$out/junit.xml
mapfile -t graded < <(sort "$out/.graded")
# A file of OUT as the reports show it: every control character but the tab
# and the newline that frame score.tsv as ?, so that a name or a reason can
# neither forge a line nor hide what it says.
shown() { LC_ALL=C tr '\000-\010\013-\037\177' '?' < "$1" | iconv -f UTF-8 -t UTF-8 -c; } # and no byte that is no UTF-8
# This run's submissions, with the folders of their labs' scores, and those
# a Slurm grading could not grade (their .not-graded says why: grade-slurm.sh).
submissions() {
    for name in "${graded[@]}"; do
        [ -f "$out/$name/$1/score.tsv" ] || [ -f "$out/$name/.not-graded" ] && echo "$out/$name"
    done
}
not_graded() { [ -f "$1/.not-graded" ]; }
mapfile -t dirs < <(submissions "$1")
rm -f "$csv" "$md" "$xml"
{
    printf 'submission'
    for lab in "$@"; do printf ',%s' "$lab"; done
    printf ',total,out of,idea missing or forged\n'
    for d in "${dirs[@]}"; do
        printf '"%s"' "$(shown "$d/.name" | sed 's/"/""/g')"
        if not_graded "$d"; then
            for lab in "$@"; do printf ',not graded'; done
            printf ',not graded,,\n'
            continue
        fi
        for lab in "$@"; do
            printf ',%s' "$(score_awk '{ t += $col["points"] } END { print t + 0 }' "$d/$lab/score.tsv")"
        done
        score_awk '{ t += $col["points"]; m += $col["max"]; technique = $col["technique"] }
            technique == "missing" || technique == "review" || technique == "slow" {
                lazy = lazy (lazy == "" ? "" : "; ") $col["lab"] " " $col["stage"] \
                    (technique == "review" ? " (forged: review)" : technique == "slow" ? " (slow on the GPU: review)" : "") }
            END { printf ",%s,%s,\"%s\"\n", t + 0, m + 0, lazy }' "$d"/*/score.tsv
    done
} > "$csv"
{
    echo "# Grades"
    echo
    echo "${#dirs[@]} submissions, labs: $*. Each stage scores its points only if"
    echo "every case of it was judged right by the grader's own binary (grading/grade.sh), and"
    echo "its kernel shows the stage's idea, as counted under the emulation (and, on the GPU, in"
    echo "its time against the reference solution's). \"Judged on\" says"
    echo "where its outputs were judged last: under the CPU emulation, or on the GPU (in a"
    echo "grading in two tiers, only the stages that scored under the emulation go to the GPU)."
    shown "$out/.how"
    echo
    for d in "${dirs[@]}"; do
        if not_graded "$d"; then
            printf '## %s: not graded\n\n%s\n\n' "$(shown "$d/.name")" "$(shown "$d/.not-graded")"
            continue
        fi
        echo "## $(shown "$d/.name"): $(score_awk '{ t += $col["points"]; m += $col["max"] } END { print t " of " m }' \
            "$d"/*/score.tsv)"
        echo
        echo "| lab | stage | points | judged on | why |"
        echo "|---|---|---|---|---|"
        for lab in "$@"; do
            shown "$d/$lab/score.tsv" | score_awk '{ why = $col["why"]; gsub(/\|/, "/", why); judged = $col["judged"]
                printf "| %s | %s | %s of %s | %s | %s |\n", $col["lab"], $col["stage"], $col["points"], $col["max"],
                    (judged == "" ? "-" : judged), why }'
            [ -f "$d/$lab/frame.note" ] && shown "$d/$lab/frame.note" |
                awk -v lab="$lab" '{ gsub(/\|/, "/"); print "| " lab " | - | - | - | " $0 " |" }'
        done
        echo
    done
} > "$md"
# Gradescope: {"score", "tests": [{"name", "score", "max_score", "output"}]}
how=$(shown "$out/.how")
for d in "${dirs[@]}"; do
    rm -f "$d/results.json"
    if not_graded "$d"; then # no score: a 0 would read as a grade
        printf '{\n  "output": "not graded: %s",\n  "tests": []\n}\n' \
            "$(shown "$d/.not-graded" | tr -d '\n' | sed 's/[\\"]/\\&/g')" > "$d/results.json"
        continue
    fi
    for lab in "$@"; do shown "$d/$lab/score.tsv"; done | HOW=$how score_awk '
        BEGIN { for (i = 1; i < 128; i++) code[sprintf("%c", i)] = i }
        function json(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s)
            while (match(s, /[\001-\037\177]/))
                s = substr(s, 1, RSTART - 1) sprintf("\\u%04x", code[substr(s, RSTART, 1)]) substr(s, RSTART + 1)
            return "\"" s "\"" }
        { t += $col["points"]; judged = $col["judged"]
          tests = tests (n++ ? ",\n    " : "    ") \
              sprintf("{\"name\": %s, \"score\": %s, \"max_score\": %s, \"output\": %s}",
                      json($col["lab"] " stage " $col["stage"]), $col["points"], $col["max"],
                      json($col["why"] (judged == "GPU" ? " [judged on the GPU]" : judged == "" ? "" : " [judged under the CPU emulation]"))) }
        END { printf "{\n  \"score\": %s,\n  \"output\": %s,\n  \"tests\": [\n%s\n  ]\n}\n",
                    t + 0, json(ENVIRON["HOW"]), tests }' \
        > "$d/results.json"
done
{
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites name="make grade">'
    for d in "${dirs[@]}"; do
        if not_graded "$d"; then
            shown "$d/.not-graded" | WHO=$(shown "$d/.name") awk '
                function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
                                  gsub(/"/, "\\&quot;", s); gsub(/[\001-\037\177]/, "?", s); return s }
                { why = why $0 }
                END { printf "  <testsuite name=\"%s\" tests=\"1\" errors=\"1\">\n" \
                             "    <testcase classname=\"%s\" name=\"not graded\"><error message=\"%s\"/></testcase>\n" \
                             "  </testsuite>\n", xml(ENVIRON["WHO"]), xml(ENVIRON["WHO"]), xml(why) }'
            continue
        fi
        for lab in "$@"; do shown "$d/$lab/score.tsv"; done | WHO=$(shown "$d/.name") score_awk '
            function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
                              gsub(/"/, "\\&quot;", s); gsub(/[\001-\037\177]/, "?", s); return s }
            { n++; lost = $col["points"] < $col["max"]; failed += lost
              cases = cases sprintf("    <testcase classname=\"%s.%s\" name=\"stage %s\">%s</testcase>\n",
                  xml(ENVIRON["WHO"]), xml($col["lab"]), xml($col["stage"]),
                  lost ? "<failure message=\"" xml($col["why"]) "\"/>" : "") }
            END { printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\">\n%s  </testsuite>\n",
                  xml(ENVIRON["WHO"]), n, failed, cases }'
    done
    echo '</testsuites>'
} > "$xml"
missing=()
for f in "$csv" "$md" "$xml" "${dirs[@]/%//results.json}"; do [ -f "$f" ] || missing+=("$f"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "grade: not written, so the grades are incomplete: ${missing[*]}"
    exit 1
fi
echo "grade: $md, $csv, $xml and results.json (Gradescope) in each submission's folder"
