#!/usr/bin/env bash
# pdf-test.sh: make pdf's course, read as a person would, page by page: every
# page rendered as an image, none of them blank and none with ink past the
# side margins (cut off by the paper), at least a page a handout, and each
# handout's title first on a page of its own, in course order (pdftotext).
# Then the same checks must fail on two broken copies: one with a blank page
# slipped in, one with its pages in reverse. `make check-pdf` runs it.
set -u
cd "$(dirname "$0")/../.." || exit 1
for tool in pdfinfo pdftoppm pdftotext pdfseparate pdfunite; do
    command -v $tool > /dev/null || { echo "pdf-test: $tool is missing (make deps-pdf installs it)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pdf-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "pdf-test: $*"; status=1; }

make --no-print-directory pdf > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make pdf fails"; exit 1; }
pdf=$(sed -n 's/^pdf: //p' "$tmp/make.log")
[ -s "$pdf" ] || { cat "$tmp/make.log"; fail "make pdf did not say where its PDF is"; exit 1; }
mapfile -t titles < <(tools/handout-pages.sh titles handouts/[0-9]*.md)

# ink PGM: "BODY SIDES", the share of dark pixels (per 100 000) in the page
# less its foot (the running footer), and how many lie in the outer 4 % at
# each side, inside the margins of any sane layout.
ink() {
    local magic w h
    { read -r magic; read -r w h; } < "$1"
    [ "$magic" = P5 ] || { echo "0 0"; return; }
    tail -c $((w * h)) "$1" | od -An -v -tu1 -w"$w" | awk -v w="$w" -v h="$h" '
        NR <= 0.92 * h { for (x = 1; x <= w; x++) if ($x < 200) { body++; if (x <= 0.04 * w || x > 0.96 * w) sides++ } }
        END { printf "%d %d\n", 100000 * body / (w * 0.92 * h), sides }'
}

# check PDF: a line for each fault found; the pages that start a handout,
# with its title, in $tmp/starts
check() {
    local pages page body sides
    pages=$(pdfinfo "$1" 2> /dev/null | awk '/^Pages:/ { print $2 }')
    [ "${pages:-0}" -ge ${#titles[@]} ] ||
        echo "${pages:-no} pages, fewer than the ${#titles[@]} handouts, which each start one"
    rm -rf "$tmp/pages" && mkdir "$tmp/pages"
    pdftoppm -r 30 -gray "$1" "$tmp/pages/page" || echo "pdftoppm could not render its pages"
    for page in "$tmp/pages"/page-*.pgm; do
        [ -e "$page" ] || break
        read -r body sides < <(ink "$page")
        page=${page##*-} page=$((10#${page%.pgm}))
        [ "$body" -ge 20 ] || echo "page $page is blank"
        [ "$sides" = 0 ] || echo "page $page has ink in its side margins: something runs off the page"
    done
    # each page whose first line is a handout's title
    pdftotext "$1" - 2> /dev/null | awk 'NR == FNR { title[$0] = 1; next }
        { n = split($0, line, "\n"); for (i = 1; i <= n; i++) if (line[i] != "") break
          if (line[i] in title) print FNR "\t" line[i] }' <(printf '%s\n' "${titles[@]}") RS='\f' - \
        > "$tmp/starts"
    printf '%s\n' "${titles[@]}" | cmp -s - <(cut -f 2 "$tmp/starts") ||
        echo "the handouts do not each start a page in course order: pages start with" \
            "$(cut -f 2 "$tmp/starts" | paste -sd '|')"
}

check "$pdf" > "$tmp/faults"
[ -s "$tmp/faults" ] && { sed 's/^/pdf-test: /' "$tmp/faults"; fail "$pdf fails the checks above"; exit 1; }
pages=$(pdfinfo "$pdf" | awk '/^Pages:/ { print $2 }')

# The checks must be able to fail. The cover and the page that starts each
# handout pass them alone; with a blank page slipped in, or in reverse, each
# copy must fail for that reason alone. (Poppler warns, harmlessly, of every
# page that weasyprint wrote: "recursive dicts".)
mapfile -t firsts < <(cut -f 1 "$tmp/starts")
for page in 1 "${firsts[@]}"; do
    pdfseparate -f "$page" -l "$page" "$pdf" "$tmp/first-$((10000 + page)).pdf" 2> /dev/null
done
printf '<p></p>' | weasyprint --quiet - "$tmp/blank.pdf" || fail "weasyprint made no blank page"
firsts=("$tmp"/first-*.pdf)
pdfunite "${firsts[@]}" "$tmp/firsts.pdf" 2> /dev/null
pdfunite "${firsts[@]:0:2}" "$tmp/blank.pdf" "${firsts[@]:2}" "$tmp/with-blank.pdf" 2> /dev/null
mapfile -t reversed < <(printf '%s\n' "${firsts[@]}" | sort -r)
pdfunite "${reversed[@]}" "$tmp/reversed.pdf" 2> /dev/null
faults=$(check "$tmp/firsts.pdf")
[ -z "$faults" ] || fail "the first page of each handout, alone, fails the check: $faults"
faults=$(check "$tmp/with-blank.pdf")
[ "$faults" = "page 3 is blank" ] || fail "a blank page 3 was not found, and only that: ${faults:-passed}"
faults=$(check "$tmp/reversed.pdf")
[[ $faults = "the handouts do not each start a page in course order"* && $faults != *$'\n'* ]] ||
    fail "pages in reverse order were not found, and only that: ${faults:-passed}"

[ $status = 0 ] && echo "pdf-test: $pdf: $pages pages, none blank, none past its margins, the" \
    "${#titles[@]} handouts in order, each from a new page; a blank page and reversed pages fail"
exit $status
