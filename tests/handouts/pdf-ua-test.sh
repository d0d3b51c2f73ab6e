#!/usr/bin/env bash
# pdf-ua-test.sh: make pdf's course, tagged for PDF/UA-1, read back as a
# screen reader finds it (tests/handouts/pdf-tags.py, with pikepdf): a
# structure tree, marked as tagged, the document's language and title, the
# PDF/UA identifier, headings, lists, tables and links, and every image of
# the course tagged as a figure with alt text. The check must be able to
# fail: on a small page made the same way but with an image without alt
# text, with no language, or not tagged at all, each for that reason alone.
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
tags "$pdf" "$images" || fail "$pdf is not tagged as PDF/UA-1 asks (above)"

# The planted faults: a page with all the course's kinds of element, made
# into a PDF as make pdf makes its own, then broken one way at a time.
# PAGE LANG ALT: the page, with that language and its second image's alt
page() {
    printf '<html%s><head><title>Planted</title></head><body><h1>Planted</h1><h2>Its part</h2>' "$1"
    printf '<p>A <a href="#x">link</a>.</p><ul><li>one</li></ul><table><tr><th>n</th></tr><tr><td>1</td></tr></table>'
    printf '<img alt="a square" src="data:image/svg+xml,%%3Csvg xmlns=%%22http://www.w3.org/2000/svg%%22 width=%%2210%%22 height=%%2210%%22/%%3E">'
    printf '<img%s src="data:image/svg+xml,%%3Csvg xmlns=%%22http://www.w3.org/2000/svg%%22 width=%%2210%%22 height=%%2210%%22/%%3E">' "$2"
    printf '<p id="x">end</p></body></html>\n'
}
# planted NAME LANG ALT WEASYPRINT-OPTION... : the faults pdf-tags.py finds in it
planted() {
    page "$2" "$3" > "$tmp/$1.html"
    "$pytools/bin/weasyprint" --quiet "${@:4}" "$tmp/$1.html" "$tmp/$1.pdf" 2> /dev/null
    tags "$tmp/$1.pdf" 2 | sed "s|^pdf-tags: $tmp/$1.pdf: ||"
}
found=$(planted whole ' lang="en"' ' alt="a circle"' --pdf-variant=pdf/ua-1)
[[ $found = "tagged for PDF/UA-1"* ]] || fail "the planted page, whole, is not found tagged: $found"
found=$(planted no-alt ' lang="en"' '' --pdf-variant=pdf/ua-1)
[ "$found" = "figure 2 has no alt text (/Alt)" ] || fail "an image without alt text was not found, and only it: $found"
found=$(planted no-lang '' ' alt="a circle"' --pdf-variant=pdf/ua-1)
[[ $found = "no document language (/Lang)"* && $found != *$'\n'* ]] ||
    fail "a page without a language was not found, and only that: $found"
found=$(planted untagged ' lang="en"' ' alt="a circle"')
[[ $found = "no structure tree"* ]] || fail "an untagged PDF was not found: $found"

[ $status = 0 ] && echo "pdf-ua-test: $pdf is tagged for PDF/UA-1, its $images images with alt text;" \
    "an image without alt text, a page without a language and an untagged PDF fail"
exit $status
