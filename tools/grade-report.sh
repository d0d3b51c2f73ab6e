#!/usr/bin/env bash
# grade-report.sh OUT LAB...: the class's grades from OUT/<name>/<lab>/score.tsv
# (lab, stage, points, out of, why): OUT/grades.csv, one row a submission,
# and OUT/summary.md for the instructor.
set -u
out=$1
shift
csv=$out/grades.csv md=$out/summary.md
{
    printf 'submission'
    for lab in "$@"; do printf ',%s' "$lab"; done
    printf ',total,out of\n'
    for d in "$out"/*/; do
        [ -f "$d/${1}/score.tsv" ] || continue
        printf '"%s"' "$(sed 's/"/""/g' "$d/.name")"
        for lab in "$@"; do
            printf ',%s' "$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$d/$lab/score.tsv")"
        done
        awk -F'\t' '{ t += $3; m += $4 } END { printf ",%s,%s\n", t + 0, m + 0 }' "$d"/*/score.tsv
    done
} > "$csv"
{
    echo "# Grades"
    echo
    echo "$(($(wc -l < "$csv") - 1)) submissions, labs: $*. Each stage scores its points only if"
    echo "every case of it was judged right by the grader's own binary (tools/grade.sh)."
    echo
    for d in "$out"/*/; do
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
echo "grade: $md and $csv"
