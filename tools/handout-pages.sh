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

if [ "$mode" = appendix-nav ]; then
    printf '<nav class="pages">&larr; <a href="../%s.html">%s</a> &middot; <a href="../index.html">all labs</a></nav>\n' \
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
    for f in "$@"; do
        printf '\n::: {#handout-%s .handout}\n::: handout-title\n%s\n:::\n\n::: handout-subtitle\n%s\n:::\n\n' \
            "$(lab "$f")" "$(field title "$f")" "$(field subtitle "$f")"
        body "$f"
        printf '\n:::\n'
    done
    for f in "$@"; do
        [ -f "$(appendix "$f")" ] || continue
        printf '\n::: {#appendix-%s .handout}\n::: handout-title\n%s\n:::\n\n::: handout-subtitle\n%s\n:::\n\n' \
            "$(lab "$f")" "$(field title "$(appendix "$f")")" "$(field subtitle "$(appendix "$f")")"
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
    printf '<nav class="pages">'
    [ -n "$before" ] && printf '&larr; %s &middot; ' "$(link "$before")"
    printf '<a href="index.html">all labs</a>'
    [ -n "$after" ] && printf ' &middot; %s &rarr;' "$(link "$after")"
    printf '</nav>\n'
    exit 0
fi

front_matter
cat <<'EOF'

Work through the labs in order: each builds on the ones before. In each lab
you fill in the TODOs of `labs/<lab>/<lab>.cu`, one stage at a time, and
`make test LAB=<lab>` checks them (on the CPU emulation when there is no
GPU). What the GPUs measured, lab by lab, is indexed in `results/README.md`.

| | handout | what it teaches | your file | written |
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
