#!/usr/bin/env bash
# stage-words.sh BUILD: a stage's idea is worded once, in its row of the
# stage table (run list=ideas: the run table's few words, and the handout's,
# which the technique's verdict quotes). This checks every page that quotes
# make test's output (README.md, handouts/, the model answers) against those
# rows: each summary line ("  stage 3   IDEA   19 of 19 ..."), run table row
# ("3       IDEA   ok ...") and verdict ("this stage's idea is IDEA
# (handouts/03-histogram.md, stage 3)"), the first two in code blocks. A
# quoted line's lab is the one its block's header names ("map,
# labs/map/map.cu, seed 5:"), else its verdict's handout, else the page's
# own lab. The notebook's pages quote trials of their time, by design, and
# are left out.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build/emu}
read -ra course <<< "$(sed -n 's/^COURSE *:= *//p' Makefile)"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
for lab in "${course[@]}"; do
    run=$build/solutions/$lab/run
    [ -x "$run" ] || { echo "stage-words: $run is not built"; exit 1; }
    "$run" list=ideas | sed "s/^/$lab\t/" >> "$tmp/ideas" || exit 1
done
shopt -s nullglob # a lab may have no appendix
pages=(README.md handouts/*.md handouts/appendix/*.md solutions/*/ANSWERS.md)
awk -F '\t' -v course="${course[*]}" '
    FILENAME == ARGV[1] { short[$1, $2] = $3; long[$1, $2] = $4; next }
    FNR == 1 { page_lab = ""; block_lab = ""; in_block = 0; n = split(course, labs, " ")
               for (k = 1; k <= n; k++) if (FILENAME ~ "[0-9]-" labs[k] "\\.md$" || FILENAME ~ "/" labs[k] "/") page_lab = labs[k] }
    /^```/ { block_lab = ""; in_block = !in_block; next }
    match($0, /^([a-zA-Z-]+), [^ ]+\.cu, seed /) { block_lab = substr($0, 1, index($0, ",") - 1) }
    function check(lab, id, quoted, want, what) {
        if (!((lab, id) in short)) return
        if (quoted != want) {
            printf "stage-words: %s:%d: %s stage %s: %s \"%s\", where its row says \"%s\"\n",
                   FILENAME, FNR, lab, id, what, quoted, want
            bad++
        }
        checked++
    }
    {
        lab = block_lab != "" ? block_lab : page_lab
        if (match($0, /this stage.s idea is .* \(handouts\/[0-9]+-[a-zA-Z-]+\.md, stage [0-9a-z]+\)/)) {
            v = substr($0, RSTART + length("this stage'"'"'s idea is "), RLENGTH - length("this stage'"'"'s idea is "))
            ref = v; sub(/^.* \(handouts\/[0-9]+-/, "", ref)
            vlab = ref; sub(/\.md, stage .*$/, "", vlab)
            vid = ref; sub(/^.*, stage /, "", vid); sub(/\)$/, "", vid)
            idea = v; sub(/ \(handouts\/[0-9]+-[a-zA-Z-]+\.md, stage [0-9a-z]+\)$/, "", idea)
            check(vlab, vid, idea, long[vlab, vid], "its verdict quotes")
            if (lab == "") lab = vlab
        }
        line = in_block ? $0 : ""
        if (match(line, /^  stage [0-9][a-z]? +.* [0-9]+ of +[0-9]+ (passed|right)/)) { # a summary line: the idea in 42 columns
            id = line; sub(/^  stage /, "", id); sub(/ .*/, "", id)
            idea = substr(line, 13, 42); sub(/ +$/, "", idea)
            check(lab, id, idea, substr(short[lab, id], 1, 42), "its summary line says")
        } else if (match(line, /^[0-9][a-z]? +[^ ].*  (ok|WRONG)  /)) { # a run table row
            id = line; sub(/ .*/, "", id)
            idea = substr(line, 9, 42); sub(/ +$/, "", idea)
            check(lab, id, idea, substr(short[lab, id], 1, 42), "its run table row says")
        }
    }
    END {
        if (bad) exit 1
        printf "check: the %d quotes of a stage'"'"'s idea in README.md, the handouts and the model answers are its row'"'"'s words\n", checked
    }' "$tmp/ideas" "${pages[@]}"
