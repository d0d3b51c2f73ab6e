#!/usr/bin/env bash
# handout-pages.sh: what ties the handouts into one course, from their own
# front matter (title, subtitle), so nothing is written twice.
#
#   handout-pages.sh nav PAGE HANDOUT...   the links above and below a page:
#                                          the one before, the index, the one after
#   handout-pages.sh index HANDOUT...      the index page, as pandoc markdown
#   handout-pages.sh course HANDOUT...     every handout in one document, as pandoc
#                                          markdown: a contents list, then each handout
#                                          as a div (id handout-name) under its title
#   handout-pages.sh titles HANDOUT...     each handout's title, a line each
#   handout-pages.sh appendix-nav HANDOUT  the links around a handout's appendix
#                                          (handouts/appendix/NN-name.md): back to it
#   handout-pages.sh syllabus HANDOUT...   the syllabus page, as pandoc markdown, from
#                                          the marks in the handouts (below); fails,
#                                          naming the line, where a mark is missing
#
# HANDOUT... are handouts/NN-name.md in course order; PAGE is one's NN-name.
# A handout links its appendix as appendix/NN-name.html, the appendix its
# handout as ../NN-name.html; the course document turns both into anchors.
set -eu
mode=$1
shift
[ "$mode" = nav ] && { page=$1; shift; }

field() { sed -n "s/^$1: \"\\(.*\\)\"$/\\1/p" "$2" | head -n 1; }
name() { basename "$1" .md; }
lab() { local n; n=$(name "$1"); echo "${n#*-}"; } # an id starts with a letter
front_matter() {
    printf -- '---\ntitle: "GPU workbook"\nsubtitle: "Staged CUDA C labs: the course in order"\n---\n'
}

appendix() { echo "handouts/appendix/$(name "$1").md"; }

# The marks a lab's handout carries, which the syllabus is made of: under
# each stage's heading ("# Stage 3: ..." or "## Stages 1 to 3: ..."), first,
# "*Core: about 1 hour.*", "*Core: about 1 hour 30 minutes.*" or "*Stretch:
# about 30 minutes.*"; and each
# question, a numbered item, opens with "**Core.**" or "**Stretch.**".
# Prints a tab-separated line a stage ("stage", heading, kind, hours) and a
# question ("question", number, kind); an unmarked one as a line "missing".
marks() {
    awk '
        function report(what) { printf "missing\t%s:%d: %s\n", FILENAME, FNR, what }
        /^```/ { code = !code }
        code { next }
        heading != "" && NF {
            if ($0 ~ /^\*(Core|Stretch): about [0-9.]+ (minutes|(hour|hours)( [0-9]+ minutes)?)\.\*$/) {
                split($0, w, " "); kind = tolower(substr(w[1], 2, length(w[1]) - 2))
                printf "stage\t%s\t%s\t%g\n", heading, kind, w[4] ~ /^minutes/ ? w[3] / 60 : w[3] + w[5] / 60
            } else report("\"" heading "\" has no *Core: about N hours.* or *Stretch: ...* line under it")
            heading = ""
        }
        /^#+ Stages? / { heading = $0; sub(/^#+ /, "", heading); next }
        /^# / { questions = $0 == "# Questions"; next }
        questions && /^[0-9]+\. / {
            if ($0 ~ /^[0-9]+\. \*\*(Core|Stretch)\.\*\*/)
                printf "question\t%d\t%s\n", $1, tolower(substr($2, 3, length($2) - 5))
            else report("question " $1 " opens with neither **Core.** nor **Stretch.**")
        }' "$1"
}

if [ "$mode" = syllabus ]; then
    printf -- '---\ntitle: "Syllabus"\nsubtitle: "What each lab asks: core and stretch, hours, suggested points"\n---\n'
    cat <<'PAGE'

Each handout marks its stages and questions **core** (what every student
should do) or **stretch** (for those who want more), with the hours a
second-year student working on the CPU emulation may need. This page is
made from those marks. A course that keeps to the core still meets every
lab's idea; the stretch stages are where the last factors of speed are.

| lab | core stages | hours | stretch stages | hours | core questions | stretch questions |
|---|---|--:|---|--:|--:|--:|
PAGE
    hours() { awk -v h="$1" 'BEGIN { printf "%g", int(h * 4 + 0.5) / 4 }'; } # to a quarter of an hour
    status=0 core_total=0 stretch_total=0 points=""
    for f in "$@"; do
        n=$(name "$f")
        [ "${n%%-*}" != 00 ] || continue
        rows=$(marks "$f")
        if grep -q '^missing' <<< "$rows"; then
            grep '^missing' <<< "$rows" | cut -f 2- >&2
            status=1
            continue
        fi
        summary=$(awk -F '\t' -v lab="${n#*-}" '
            function ids(h) { sub(/^Stages? /, "", h); sub(/:.*/, "", h); return h }
            $1 == "stage" { list[$3] = list[$3] (list[$3] ? ", " : "") ids($2); hours[$3] += $4 }
            $1 == "question" { asked[$3]++ }
            END { printf "%s\t%g\t%s\t%g\t%d\t%d", list["core"], hours["core"], list["stretch"] ? list["stretch"] : "-",
                         hours["stretch"], asked["core"], asked["stretch"] }' <<< "$rows")
        IFS=$'\t' read -r core core_hours stretch stretch_hours core_q stretch_q <<< "$summary"
        printf '| [%s](%s.html) | %s | %s | %s | %s | %d | %d |\n' "${n#*-}" "$n" "${core:--}" "$(hours "$core_hours")" \
            "$stretch" "$(hours "$stretch_hours")" "$core_q" "$stretch_q"
        # the points: a core stage its hours, rounded, at least 1 (a heading
        # of several stages shares its hours among them)
        points+=$(awk -F '\t' -v lab="${n#*-}" '
            $1 == "stage" && $3 == "core" {
                h = $2; sub(/^Stages? /, "", h); sub(/:.*/, "", h)
                if (split(h, r, / to /) == 2) { k = 0; for (s = r[1]; s <= r[2]; s++) id[++k] = s }
                else k = split(h, id, /, | and /)
                p = int($4 / k + 0.5); if (p < 1) p = 1
                for (s = 1; s <= k; s++) if (p > 1) printf "%s %s %d\n", lab, id[s], p
            }' <<< "$rows")$'\n'
        core_total=$(awk -v a="$core_total" -v b="$core_hours" 'BEGIN { print a + b }')
        stretch_total=$(awk -v a="$stretch_total" -v b="$stretch_hours" 'BEGIN { print a + b }')
    done
    printf '| **every lab** | | **%s** | | **%s** | | |\n' "$(hours "$core_total")" "$(hours "$stretch_total")"
    cat <<'PAGE'

**Suggested points.** `make grade` gives each stage 1 point unless
`grading/weights.txt` says otherwise. To weigh the core stages by the work
they ask (a point an hour, rounded, at least 1) and leave every other stage
at 1 point, put these lines in that file:

```text
PAGE
    grep -v '^$' <<< "$points" || echo "# none: no core stage here is worth more than 1 point"
    printf '```\n'
    exit $status
fi

if [ "$mode" = appendix-nav ]; then
    printf '<nav class="pages" aria-label="Course pages">&larr; <a href="../%s.html">%s</a> &middot; <a href="../index.html">all labs</a></nav>\n' \
        "$(name "$1")" "$(field title "$1")"
    exit 0
fi

if [ "$mode" = titles ]; then
    for f in "$@"; do field title "$f"; done
    exit 0
fi

if [ "$mode" = course ]; then
    front_matter
    printf '\n::: contents\n'
    for f in "$@"; do
        printf -- '[%s](#handout-%s)\n:   %s\n\n' "$(field title "$f")" "$(lab "$f")" "$(field subtitle "$f")"
    done
    printf ':::\n'
    # the links between pages, as anchors in the one document
    anchors=()
    for f in "$@"; do
        anchors+=(-e "s|(appendix/$(name "$f")\.html|(#appendix-$(lab "$f")|g"
                  -e "s|(\.\./$(name "$f")\.html|(#handout-$(lab "$f")|g")
    done
    body() { awk 'NR == 1 && /^---$/ { front = 1; next } front && /^(---|\.\.\.)$/ { front = 0; next } !front' "$1" |
             sed "${anchors[@]}"; }
    # a handout's title: a heading above its sections (level 1 where the
    # shift makes theirs 2), so a reader's outline and the PDF's tags have it
    title() { printf '%s{=html}\n<h1 class="handout-title">%s</h1>\n%s\n' '```' \
                  "$(field title "$1" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')" '```'; }
    for f in "$@"; do
        printf '\n::: {#handout-%s .handout}\n%s\n\n::: handout-subtitle\n%s\n:::\n\n' \
            "$(lab "$f")" "$(title "$f")" "$(field subtitle "$f")"
        body "$f"
        printf '\n:::\n'
    done
    for f in "$@"; do
        [ -f "$(appendix "$f")" ] || continue
        printf '\n::: {#appendix-%s .handout}\n%s\n\n::: handout-subtitle\n%s\n:::\n\n' \
            "$(lab "$f")" "$(title "$(appendix "$f")")" "$(field subtitle "$(appendix "$f")")"
        body "$(appendix "$f")"
        printf '\n:::\n'
    done
    exit 0
fi

if [ "$mode" = nav ]; then
    before="" after="" seen=""
    for f in "$@"; do
        if [ "$(name "$f")" = "$page" ]; then
            seen=1
        elif [ -z "$seen" ]; then
            before=$f
        elif [ -z "$after" ]; then
            after=$f
        fi
    done
    link() { printf '<a href="%s.html">%s</a>' "$(name "$1")" "$(field title "$1")"; }
    printf '<nav class="pages" aria-label="Course pages">'
    [ -n "$before" ] && printf '&larr; %s &middot; ' "$(link "$before")"
    printf '<a href="index.html">all labs</a>'
    [ -n "$after" ] && printf ' &middot; %s &rarr;' "$(link "$after")"
    printf '</nav>\n'
    exit 0
fi

front_matter
cat <<'EOF'

Work through the labs in order: each builds on the ones before. The
[syllabus](syllabus.html) says which stages and questions are core and which
stretch, and about how long each takes. In each lab
you fill in the TODOs of `labs/<lab>/<lab>.cu`, one stage at a time, and
`make test LAB=<lab>` checks them (on the CPU emulation when there is no
GPU). What the GPUs measured, lab by lab, is indexed in `results/README.md`.

| no. | handout | what it teaches | your file | written |
|---|---|---|---|---|
EOF
for f in "$@"; do
    n=$(name "$f") lab=${n#*-}
    file="" written="yes"
    if [ "${n%%-*}" = 00 ]; then
        lab="" file="-" written="-"
    else
        file="[\`labs/$lab/$lab.cu\`](../../labs/$lab/$lab.cu)"
        [ -f "solutions/$lab/$lab.cu" ] || [ -f "labs/$lab/$lab.cu" ] || written="not yet" # as the Makefile's WRITTEN
    fi
    more=""
    [ ! -f "$(appendix "$f")" ] || more=" ([appendix](appendix/$n.html))"
    printf '| %s | [%s](%s.html)%s | %s | %s | %s |\n' "${n%%-*}" "$(field title "$f")" "$n" "$more" \
        "$(field subtitle "$f")" "$file" "$written"
done
cat <<'EOF'

The results of every lab, measured on each GPU with the command and commit
that made them: [`results/README.md`](../../results/README.md) is their
index. The planted mistakes the tests catch: [`results/emulation/mutants.txt`](../../results/emulation/mutants.txt).
EOF
