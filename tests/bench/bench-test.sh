#!/usr/bin/env bash
# bench-test.sh: make bench's CSV and plot code, on a tiny sweep under the
# emulation (CI has no GPU): the solutions of map and transpose at two sizes
# each, and map's untouched skeleton, whose wrong stages must be written as
# WRONG and left out of the plot. `make check-bench` runs it.
set -u
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "bench-test: $*"; status=1; }

for tree in SOLUTION=1 SOLUTION=; do
    for lab in map transpose; do
        make --no-print-directory build LAB=$lab EMU=1 $tree > "$tmp/build.log" 2>&1 ||
            { tail -5 "$tmp/build.log"; fail "make build LAB=$lab EMU=1 $tree fails"; exit 1; }
    done
done
command -v gnuplot > /dev/null || { fail "gnuplot is missing (make deps installs it)"; exit 1; }

# the refusal: one line, and a failure
make --no-print-directory bench LAB=map EMU=1 > "$tmp/refused.log" 2>&1 &&
    fail "make bench EMU=1 did not refuse"
[ "$(grep -c '^make bench: no sweep under EMU=1' "$tmp/refused.log")" = 1 ] ||
    fail "make bench EMU=1 did not say why, in one line"

BENCH_SIZES="2^10 2^12" COMMIT=tested tools/bench.sh build/emu/solutions "$tmp/good" map transpose \
    > "$tmp/good.log" 2>&1 || { cat "$tmp/good.log"; fail "tools/bench.sh failed on the solutions"; }
BENCH_SIZES="2^10" tools/bench.sh build/emu/labs "$tmp/skeleton" map > "$tmp/skeleton.log" 2>&1 &&
    fail "tools/bench.sh succeeded on the skeleton, whose stages are all wrong"
grep -q "^bench: map: wrong results from stage 1 2 3 4a 4b 5, left out of the plot" "$tmp/skeleton.log" ||
    { cat "$tmp/skeleton.log"; fail "tools/bench.sh did not say which of the skeleton's stages were wrong"; }
grep -q "did not finish" "$tmp/skeleton.log" && fail "tools/bench.sh took wrong stages for a run that did not finish"

csv=$tmp/good/CPU-emulation/map.csv
stages=$(tests/grade/stages.sh build/emu/solutions map)
for field in gpu driver cuda date commit seed; do
    grep -q "^# $field: ." "$csv" 2> /dev/null || fail "map.csv's header does not give the $field"
done
grep -q '^# commit: tested$' "$csv" || fail "map.csv does not name the commit it was given"
[ "$(grep -c '^lab,variant,n,rows,cols,stage,check,ms,gbps,copy_share,cpu_ms,vs_cpu$' "$csv")" = 1 ] ||
    fail "map.csv does not name its columns once, under its header"
awk -F, '!/^#/ && $1 != "lab" { rows++; if (NF != 12 || $7 != ($6 == "copy" ? "-" : "ok")) bad++ }
         END { exit !(rows == 2 * (1 + '"$stages"') && !bad) }' "$csv" ||
    fail "map.csv should hold, at each of 2 sizes, the copy and $stages stages checked ok, 12 fields a row"
awk -F, '$3 == 4096 && $6 == "5" && $8 > 0 && $11 > 0 && $12 > 0 { found = 1 } END { exit !found }' "$csv" ||
    fail "map.csv has no time, CPU time and speedup for stage 5 at n = 4096"
svg=${csv%.csv}.svg
for text in "<svg" "time per element" "share of the copy" "speedup over one CPU core" "stage 5" "copy"; do
    grep -q "$text" "$svg" 2> /dev/null || fail "map.svg does not show '$text'"
done

# the plot reads the columns by name: in another order, and with one more, it is the same
mkdir "$tmp/shuffled" && awk -F, -v OFS=, '/^#/ { print; next }
    { line = ($1 == "lab" ? "extra" : "1"); for (i = NF; i >= 1; i--) line = line OFS $i; print line }' \
    "$csv" > "$tmp/shuffled/map.csv"
if ! { tools/bench-plot.sh "$tmp/shuffled/map.csv" > /dev/null && cmp -s "$svg" "$tmp/shuffled/map.svg"; }; then
    fail "bench-plot.sh drew another plot from map.csv with its columns in another order"
fi

tcsv=$tmp/good/CPU-emulation/transpose.csv
for shape in 32,32 31,33 64,64 63,65; do
    grep -q "^transpose,-,[0-9]*,$shape,copy," "$tcsv" 2> /dev/null ||
        fail "transpose.csv has no ${shape/,/x} shape"
done
grep -q "stage 1" "${tcsv%.csv}.svg" 2> /dev/null || fail "transpose.svg does not show stage 1"

scsv=$tmp/skeleton/CPU-emulation/map.csv
[ "$(grep -c ',WRONG,' "$scsv" 2> /dev/null)" = "$stages" ] ||
    fail "the skeleton's $stages stages are not written as WRONG in its CSV"
grep -q "stage 1" "${scsv%.csv}.svg" && fail "the skeleton's plot shows a wrong stage"

[ $status = 0 ] && echo "bench-test: the CSV and the plots of a tiny emulated sweep are right; make bench EMU=1 refuses"
exit $status
