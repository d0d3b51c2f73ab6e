#!/usr/bin/env bash
# plant.sh LAB REGEX: the solution of LAB as a student hands it in
# (tests/grade/handed-in.sh), with the edits of every block of
# tests/mutants/LAB.mut whose "stage | mistake" line REGEX matches (as
# bash's =~ does) applied in the file's order, on stdout. mutants.sh plants
# each mutant with it; the grader's tests make hostile and honest
# submissions with it. Fails, saying so, when no block matches or an edit
# finds no line. The blocks' syntax is in mutants.sh's header.
set -u
cd "$(dirname "$0")/../.." || exit 1
[ $# -eq 2 ] || { echo "usage: tests/mutants/plant.sh LAB REGEX" >&2; exit 2; }
lab=$1 regex=$2 mut=tests/mutants/$1.mut
[ -f "$mut" ] || { echo "plant.sh: $mut does not exist" >&2; exit 1; }

# Apply one block's edits (lines "@ ...", "- ...", "+ ...") to stdin; they
# reach awk through the environment, which keeps a backslash as it is.
apply() {
    EDITS=$1 awk '
        BEGIN {
            n = split(ENVIRON["EDITS"], line, "\n")
            for (k = 1; k <= n; k++) {
                kind = substr(line[k], 1, 1); text = substr(line[k], 3)
                if (kind == "@") anchor[++edit] = text
                else if (kind == "-") { old[++pair] = text; at[pair] = edit }
                else if (kind == "+" && (pair in new)) new[pair] = new[pair] "\n" text
                else if (kind == "+") new[pair] = text
            }
            p = 1
        }
        /^[ \t]*(\/\*|\*( |\/|$)|\/\/)/ { print; next }  # comments: the hints quote the code
        {
            if (p <= pair && at[p] in anchor && !seen[at[p]] && index($0, anchor[at[p]]))
                seen[at[p]] = 1
            if (p <= pair && (!(at[p] in anchor) || seen[at[p]]) && (i = index($0, old[p]))) {
                $0 = substr($0, 1, i - 1) new[p] substr($0, i + length(old[p]))
                p++
            }
            print
        }
        END { if (p <= pair) { print "finds no line: " old[p] > "/dev/stderr"; exit 1 } }
    '
}

err=$(mktemp "${TMPDIR:-/tmp}/plant.XXXXXX") || exit 1
trap 'rm -f "$err"' EXIT
text=$(tests/grade/handed-in.sh "$lab") || exit 1
planted=0 title="" edits=""
# Apply the block read so far, if REGEX matches its "stage | mistake" line.
plant() {
    [ -n "$title" ] && [[ $title =~ $regex ]] || return 0
    local out
    out=$(apply "$edits" <<< "$text" 2> "$err") ||
        { echo "plant.sh: $lab: the block \"$title\" $(cat "$err")" >&2; exit 1; }
    text=$out planted=$((planted + 1))
}
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
    "== "*) plant; title=${line#== } edits="" ;;
    [@+-]" "*) edits+="$line"$'\n' ;;
    esac
done < "$mut"
plant
[ "$planted" -gt 0 ] || { echo "plant.sh: no block of $mut matches $regex" >&2; exit 1; }
printf '%s\n' "$text"
