#!/usr/bin/env bash
# pdf-ua-test.sh: make pdf's course, tagged for PDF/UA-1, read back as a
# screen reader finds it (tests/handouts/pdf-tags.py, with pikepdf): a
# structure tree, marked as tagged, the document's language and title, the
# PDF/UA identifier, headings, lists, tables, links and code, every image of
# the course tagged as a figure with alt text, and every formula as one with
# its TeX. The check must be able to fail: on a small page made the same way
# but with an image without alt text, a formula without its TeX, no
# language, formulas, code and a plot's data file left untagged (weasyprint
# alone), or not tagged at all, each for that reason alone.
# `make check-pdf-ua` runs it; `make deps-pdf` installs the tools.
set -u
cd "$(dirname "$0")/../.." || exit 1
pytools=${PYTOOLS:-build/pytools}
for need in "$pytools/bin/python" "$pytools/bin/weasyprint"; do
    [ -x "$need" ] || { echo "pdf-ua-test: $need is missing (make deps-pdf installs it)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pdf-ua-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "pdf-ua-test: $*"; status=1; }
tags() { "$pytools/bin/python" tests/handouts/pdf-tags.py "$@"; }

make --no-print-directory pdf > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make pdf fails"; exit 1; }
pdf=$(sed -n 's/^pdf: //p' "$tmp/make.log")
[ -s "$pdf" ] || { cat "$tmp/make.log"; fail "make pdf did not say where its PDF is"; exit 1; }
images=$(grep -o '<img ' "${pdf%.pdf}.html" | wc -l)
formulas=$(grep -o '<math ' "${pdf%.pdf}.html" | wc -l)
datafiles=$(grep -o '<a [^>]*rel="attachment"[^>]*>' "${pdf%.pdf}.html" | grep -o ' download="[^"]*"' | sort -u | wc -l)
tags "$pdf" "$images" "$formulas" "$datafiles" || fail "$pdf is not tagged as PDF/UA-1 asks (above)"

# The planted faults: a page with all the course's kinds of element, made
# into a PDF as make pdf makes its own, then broken one way at a time.
# page LANG ALT TEX: the page, with that language, its second image's alt
# and its formula's TeX
page() {
    printf '<html%s><head><title>Planted</title></head><body><h1>Planted</h1><h2>Its part</h2>' "$1"
    printf '<p>A <a href="#x">link</a>, <code>x[i]</code> and <math display="inline" xmlns="http://www.w3.org/1998/Math/MathML">'
    printf '<semantics><msup><mn>2</mn><mn>31</mn></msup>%s</semantics></math>.</p>' "$3"
    printf '<p>A plot, and <a href="data:text/csv;charset=utf-8,n%%0A1%%0A" download="planted.csv" rel="attachment">its data</a>.</p>'
    printf '<ul><li>one</li></ul><table><tr><th>n</th></tr><tr><td>1</td></tr></table>'
    printf '<img alt="a square" src="data:image/svg+xml,%%3Csvg xmlns=%%22http://www.w3.org/2000/svg%%22 width=%%2210%%22 height=%%2210%%22/%%3E">'
    printf '<img%s src="data:image/svg+xml,%%3Csvg xmlns=%%22http://www.w3.org/2000/svg%%22 width=%%2210%%22 height=%%2210%%22/%%3E">' "$2"
    printf '<p id="x">end</p></body></html>\n'
}
# planted NAME LANG ALT TEX MAKER...: the faults pdf-tags.py finds in the
# page made into a PDF by MAKER (make pdf's own: tools/pdf.py)
tex='<annotation encoding="application/x-tex">2^{31}</annotation>'
pdf_py=("$pytools/bin/python" tools/pdf.py)
planted() {
    page "$2" "$3" "$4" > "$tmp/$1.html"
    "${@:5}" "$tmp/$1.html" "$tmp/$1.pdf" 2> /dev/null
    tags "$tmp/$1.pdf" 2 1 1 | sed "s|^pdf-tags: $tmp/$1.pdf: ||"
}
found=$(planted whole ' lang="en"' ' alt="a circle"' "$tex" "${pdf_py[@]}")
[[ $found = "tagged for PDF/UA-1"* ]] || fail "the planted page, whole, is not found tagged: $found"
found=$(planted no-alt ' lang="en"' '' "$tex" "${pdf_py[@]}")
[ "$found" = "figure 2 has no alt text (/Alt)" ] || fail "an image without alt text was not found, and only it: $found"
found=$(planted no-tex ' lang="en"' ' alt="a circle"' '' "${pdf_py[@]}")
[ "$found" = "formula 1 has no alt text (/Alt)" ] || fail "a formula without its TeX was not found, and only it: $found"
found=$(planted no-lang '' ' alt="a circle"' "$tex" "${pdf_py[@]}")
[[ $found = "no document language (/Lang)"* && $found != *$'\n'* ]] ||
    fail "a page without a language was not found, and only that: $found"
found=$(planted unnamed ' lang="en"' ' alt="a circle"' "$tex" "$pytools/bin/weasyprint" --quiet --pdf-variant=pdf/ua-1)
[ "$found" = "0 formulas tagged, of the 1 in its HTML"$'\n'"a FileAttachment annotation outside the structure tree, first on page 1"$'\n'"a FileAttachment annotation without a description (/Contents), first on page 1"$'\n'"no Code element in the structure tree" ] ||
    fail "weasyprint alone, which names no formula and no code and tags no data file, was not found so: $found"
found=$(planted untagged ' lang="en"' ' alt="a circle"' "$tex" "$pytools/bin/weasyprint" --quiet)
[[ $found = "no structure tree"* ]] || fail "an untagged PDF was not found: $found"

[ $status = 0 ] && echo "pdf-ua-test: $pdf is tagged for PDF/UA-1, its $images images with alt text," \
    "its $formulas formulas with their TeX and its $datafiles plots' data attached; an image" \
    "without alt text, a formula without TeX, a page without a language, untagged formulas, code" \
    "and data, and an untagged PDF fail"
exit $status
