#!/usr/bin/env bash
# a11y-test.sh: every HTML handout (make handouts), loaded in a real headless
# Chromium and checked by axe-core against WCAG 2.1 A and AA (the level US
# public universities must meet) and axe's best practices: a line a violation, with its rule, impact
# and element, and a count a page; it fails on any. The check must be able
# to fail: a copy of the index with an image that has no alt text must be
# reported for that, and only that. `make check-a11y` runs it; `make
# deps-a11y` installs Chromium, its driver and build/pytools (tests/handouts/axe.py).
set -u
cd "$(dirname "$0")/../.." || exit 1
pytools=${PYTOOLS:-build/pytools}
python=$pytools/bin/python
axe_js=$(echo "$pytools"/lib/python3*/site-packages/axe_playwright_python/axe.min.js)
for need in chromium chromedriver "$python" "$axe_js"; do
    command -v "$need" > /dev/null || [ -f "$need" ] ||
        { echo "a11y-test: $need is missing (make deps-a11y installs it)"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/a11y-test.XXXXXX") || exit 1
driver="" # chromedriver's process id while it runs
trap '[ -z "$driver" ] || { kill "$driver"; wait "$driver"; } 2> /dev/null; rm -rf "$tmp"' EXIT
status=0
fail() { echo "a11y-test: $*"; status=1; }

make --no-print-directory handouts > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make handouts fails"; exit 1; }
read -r -a pages < <(sed -n 's/^handouts: //p' "$tmp/make.log")
[ ${#pages[@]} -gt 0 ] || { cat "$tmp/make.log"; fail "make handouts named no page"; exit 1; }

# The planted fault: the index again, with a figure that has no alt text
# (WCAG 1.1.1), which axe must report as image-alt.
planted=$tmp/planted.html
sed 's|</h1>|&<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">|' "${pages[0]}" > "$planted"
grep -q '<img src="data:image/gif' "$planted" || fail "the planted image did not go into ${pages[0]}"

# chromedriver, started here on a free port on this machine alone, starts
# Chromium for axe.py; both stop with it, by its process id.
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chromedriver --port="$port" --allowed-ips=127.0.0.1 > "$tmp/driver.log" 2>&1 &
driver=$!
for _ in $(seq 50); do
    grep -q 'started successfully' "$tmp/driver.log" && break
    kill -0 "$driver" 2> /dev/null || break
    sleep 0.2
done
grep -q 'started successfully' "$tmp/driver.log" || { cat "$tmp/driver.log"; fail "chromedriver did not start"; exit 1; }

"$python" tests/handouts/axe.py "http://127.0.0.1:$port" "$axe_js" "${pages[@]}" "$planted" > "$tmp/axe.log" 2>&1
kill "$driver" && wait "$driver" 2> /dev/null
driver=""
grep -v "^axe: $planted:" "$tmp/axe.log"
violations=$(awk '/^axe: .*: [0-9]+ violations? \(axe-core/ && index($0, planted) == 0 { n += $(NF - 3) } END { print n + 0 }' \
    planted="$planted" "$tmp/axe.log")
checked=$(grep -c ' violations\? (axe-core' "$tmp/axe.log")
[ "$checked" = $((${#pages[@]} + 1)) ] || fail "axe checked $checked of the $((${#pages[@]} + 1)) pages"
[ "$violations" = 0 ] || fail "$violations violations of WCAG 2.1 A or AA, or of axe's best practices, in the handouts"
planted_found=$(grep "^axe: $planted: " "$tmp/axe.log" | grep -v ' violations\? (axe-core')
if [[ $planted_found = *": image-alt ("* && $planted_found != *$'\n'* ]]; then
    echo "a11y-test: planted, and found: ${planted_found#"axe: $planted: "}"
else
    fail "the planted image without alt text was not reported, and only it: ${planted_found:-passed}"
fi

[ $status = 0 ] && echo "a11y-test: ${#pages[@]} handout pages, 0 violations of WCAG 2.1 A and AA or axe's best practices" \
    "under axe-core in headless Chromium; a planted image without alt text is reported"
exit $status
