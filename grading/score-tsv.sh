# shellcheck shell=bash
# score-tsv.sh, sourced by grade.sh, grade-report.sh and tests/grade:
# score.tsv, one lab's grades of one submission (OUT/<name>/<lab>/), written
# and read by column name. Its first line names the columns, tab-separated;
# then a row a stage. A reader that counted fields would read another once
# a column is added, as make bench's CSV taught (tools/bench-csv.sh).

# The columns: the lab; the stage; the points it scored, and those it could
# have; why; its technique (shown; missing, or slow on the GPU; review where
# its record was forged; - where its outputs were wrong, so it was not
# asked); and where its outputs were judged last (emulation or GPU). A
# string, not an array, for grade.sh's graders get it from the environment.
score_columns="lab stage points max why technique judged"

# score_header: score.tsv's first line.
score_header() { printf '%s\n' "${score_columns// /$'\t'}"; }

# score_row COLUMN=VALUE...: a row, every column given.
score_row() {
    local -A value=()
    local arg column row=()
    for arg; do value[${arg%%=*}]=${arg#*=}; done
    for column in $score_columns; do
        [ -n "${value[$column]+given}" ] || { echo "score_row: no $column given" >&2; return 1; }
        row+=("${value[$column]}")
    done
    local IFS=$'\t'
    printf '%s\n' "${row[*]}"
}

# score_awk [-v NAME=VALUE...] PROGRAM [FILE...]: awk over the rows of
# score.tsv FILEs, or of stdin (several files one after another), with
# col["name"] the field of column "name" ($col["points"]); each file's
# header read, never passed to PROGRAM.
score_awk() {
    local options=()
    while [ "${1:-}" = -v ]; do options+=("$1" "$2"); shift 2; done
    awk -F'\t' "${options[@]}" 'FNR == 1 || $0 == header { header = $0; for (i = 1; i <= NF; i++) col[$i] = i; next }
        '"$1" "${@:2}"
}
