#!/usr/bin/env bash
# grade-report.sh OUT LAB...: the class's grades, for the submissions
# OUT/.graded names (this run's, folder names without spaces), from
# OUT/<name>/<lab>/score.tsv
# (lab, stage, points, out of, why, technique): OUT/grades.csv, one row a
# submission, with the stages whose outputs were right but whose kernels
# lack their idea,
# OUT/summary.md for the instructor, OUT/junit.xml for CI (a test suite a
# submission, a test case a stage), and OUT/<name>/results.json in
# Gradescope's autograder format (a test a stage).
set -u
out=$1
shift
csv=$out/grades.csv md=$out/summary.md
mapfile -t graded < <(sort "$out/.graded")
{
    printf 'submission'
    for lab in "$@"; do printf ',%s' "$lab"; done
    printf ',total,out of,idea missing\n'
    for name in "${graded[@]}"; do d=$out/$name
        [ -f "$d/${1}/score.tsv" ] || continue
        printf '"%s"' "$(sed 's/"/""/g' "$d/.name")"
        for lab in "$@"; do
            printf ',%s' "$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$d/$lab/score.tsv")"
        done
        awk -F'\t' '{ t += $3; m += $4 }
            $6 == "missing" { lazy = lazy (lazy == "" ? "" : "; ") $1 " " $2 }
            END { printf ",%s,%s,\"%s\"\n", t + 0, m + 0, lazy }' "$d"/*/score.tsv
    done
} > "$csv"
{
    echo "# Grades"
    echo
    echo "$(($(wc -l < "$csv") - 1)) submissions, labs: $*. Each stage scores its points only if"
    echo "every case of it was judged right by the grader's own binary (grading/grade.sh), and"
    echo "its kernel shows the stage's idea, as counted under the emulation."
    cat "$out/.how"
    echo
    for name in "${graded[@]}"; do d=$out/$name
        [ -f "$d/${1}/score.tsv" ] || continue
        echo "## $(cat "$d/.name"): $(awk -F'\t' '{ t += $3; m += $4 } END { print t " of " m }' "$d"/*/score.tsv)"
        echo
        echo "| lab | stage | points | why |"
        echo "|---|---|---|---|"
        for lab in "$@"; do
            awk -F'\t' '{ gsub(/\|/, "/", $5); printf "| %s | %s | %s of %s | %s |\n", $1, $2, $3, $4, $5 }' "$d/$lab/score.tsv"
            [ -f "$d/$lab/frame.note" ] && echo "| $lab | - | - | $(cat "$d/$lab/frame.note") |"
        done
        echo
    done
} > "$md"
# Gradescope: {"score", "tests": [{"name", "score", "max_score", "output"}]}
for name in "${graded[@]}"; do d=$out/$name
    [ -f "$d/${1}/score.tsv" ] || continue
    for lab in "$@"; do cat "$d/$lab/score.tsv"; done | awk -F'\t' -v how="$(cat "$out/.how")" '
        function json(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
        { t += $3; tests = tests (NR > 1 ? ",\n    " : "    ") \
              sprintf("{\"name\": %s, \"score\": %s, \"max_score\": %s, \"output\": %s}",
                      json($1 " stage " $2), $3, $4, json($5)) }
        END { printf "{\n  \"score\": %s,\n  \"output\": %s,\n  \"tests\": [\n%s\n  ]\n}\n",
                    t + 0, json(how), tests }' \
        > "$d/results.json"
done
{
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<testsuites name="make grade">'
    for name in "${graded[@]}"; do d=$out/$name
        [ -f "$d/${1}/score.tsv" ] || continue
        for lab in "$@"; do cat "$d/$lab/score.tsv"; done | awk -F'\t' -v who="$(cat "$d/.name")" '
            function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
                              gsub(/"/, "\\&quot;", s); return s }
            { n++; failed += $3 < $4
              cases = cases sprintf("    <testcase classname=\"%s.%s\" name=\"stage %s\">%s</testcase>\n",
                  xml(who), xml($1), xml($2),
                  $3 < $4 ? "<failure message=\"" xml($5) "\"/>" : "") }
            END { printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\">\n%s  </testsuite>\n",
                  xml(who), n, failed, cases }'
    done
    echo '</testsuites>'
} > "$out/junit.xml"
echo "grade: $md, $csv, $out/junit.xml and results.json (Gradescope) in each submission's folder"
