#!/usr/bin/env bash
# bench-test.sh: make bench's CSV and plot code, on a tiny sweep under the
# emulation (CI has no GPU): the solutions of map and transpose at two sizes
# each; reduce's with VARIANT=all, one CSV of every variant and a plot a
# variant, and the same a variant at a time joined by tools/bench-join.sh;
# and map's untouched skeleton, whose wrong stages must be written
# as WRONG and left out of the plot. Every plot's key names each stage by
# its idea. Also make profile's METRICS= and its refusal of a second
# --metrics (as make -n). `make check-bench` runs it.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tools/bench-csv.sh
. tools/bench-csv.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "bench-test: $*"; status=1; }
# SVG LAB: does SVG's key give each of LAB's stages as "ID: idea", as its driver names them?
names_ideas() {
    local id idea
    while IFS=$'\t' read -r id idea; do
        idea=${idea//&/&amp;} idea=${idea//</&lt;}
        grep -qF "$id: ${idea//>/&gt;}" "$1" 2> /dev/null || return 1
    done < <(build/emu/solutions/"$2"/run list=stages)
}

for build in "map SOLUTION=1" "transpose SOLUTION=1" "reduce SOLUTION=1" "map SOLUTION=" "transpose SOLUTION="; do
    read -r lab tree <<< "$build"
    make --no-print-directory build LAB="$lab" EMU=1 "$tree" > "$tmp/build.log" 2>&1 ||
        { tail -5 "$tmp/build.log"; fail "make build LAB=$lab EMU=1 $tree fails"; exit 1; }
done
command -v gnuplot > /dev/null || { fail "gnuplot is missing (make deps installs it)"; exit 1; }

# the refusal: one line, and a failure
make --no-print-directory bench LAB=map EMU=1 > "$tmp/refused.log" 2>&1 &&
    fail "make bench EMU=1 did not refuse"
[ "$(grep -c '^make bench: no sweep under EMU=1' "$tmp/refused.log")" = 1 ] ||
    fail "make bench EMU=1 did not say why, in one line"

# make profile's counters (what make -n would run: no GPU here): METRICS= adds
# to the list; a second --metrics in NCUFLAGS is refused, for profile only;
# both tools are named to the driver, which gives a stage longer under them
make --no-print-directory -n profile LAB=map ARCH=90 EMU=0 METRICS=x.sum,y.sum > "$tmp/profile.log" 2>&1
grep -q -- '--metrics [^ ]*,x\.sum,y\.sum ' "$tmp/profile.log" ||
    fail "make profile METRICS=x.sum,y.sum did not add both to Nsight Compute's --metrics"
grep -q 'WORKBOOK_TOOL="Nsight Compute, ' "$tmp/profile.log" ||
    fail "make profile did not name Nsight Compute to the driver (its longer time limit and hang message)"
make --no-print-directory -n profile LAB=map ARCH=90 EMU=0 NCUFLAGS='--metrics x' > "$tmp/profile.log" 2>&1 &&
    fail "make profile with --metrics in NCUFLAGS did not refuse"
grep -q 'give your counters as METRICS=' "$tmp/profile.log" ||
    fail "make profile's refusal of --metrics in NCUFLAGS did not say to use METRICS="
make --no-print-directory -n sanitize LAB=map ARCH=90 EMU=0 TOOL=racecheck NCUFLAGS='--metrics x' \
    > "$tmp/profile.log" 2>&1 || fail "make sanitize refused an NCUFLAGS it does not use"
grep -q "WORKBOOK_TOOL=\"compute-sanitizer's racecheck, " "$tmp/profile.log" ||
    fail "make sanitize TOOL=racecheck did not name its tool to the driver"

BENCH_SIZES="2^10 2^12" COMMIT=tested tools/bench.sh build/emu/solutions "$tmp/good" map transpose \
    > "$tmp/good.log" 2>&1 || { cat "$tmp/good.log"; fail "tools/bench.sh failed on the solutions"; }
BENCH_SIZES="2^10" tools/bench.sh build/emu/labs "$tmp/skeleton" map > "$tmp/skeleton.log" 2>&1 &&
    fail "tools/bench.sh succeeded on the skeleton, whose stages are all wrong"
grep -q "^bench: map: wrong results from stage 1 2 3 4a 4b 5, left out of the plot" "$tmp/skeleton.log" ||
    { cat "$tmp/skeleton.log"; fail "tools/bench.sh did not say which of the skeleton's stages were wrong"; }
grep -q "did not finish" "$tmp/skeleton.log" && fail "tools/bench.sh took wrong stages for a run that did not finish"

csv=$tmp/good/CPU-emulation/map/bench.csv
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
for text in "<svg" "time per element" "share of the copy" "speedup over one CPU core" "copy: "; do
    grep -q "$text" "$svg" 2> /dev/null || fail "map.svg does not show '$text'"
done
names_ideas "$svg" map || fail "map.svg's key does not name each stage by its idea (ID: idea)"

# a CSV from before the ideas were in its header: they come from the log beside it, else by number
mkdir "$tmp/old" && grep -v '^# stage ' "$csv" > "$tmp/old/map.csv" && cp "${csv%.csv}.log" "$tmp/old/map.log"
if ! { tools/bench-plot.sh "$tmp/old/map.csv" > /dev/null && names_ideas "$tmp/old/map.svg" map; }; then
    fail "bench-plot.sh did not take the ideas from the log beside a CSV without them"
fi
rm "$tmp/old/map.log"
if ! { tools/bench-plot.sh "$tmp/old/map.csv" > /dev/null && grep -q '>stage 5<' "$tmp/old/map.svg"; }; then
    fail "bench-plot.sh did not name the stages by number, with neither the ideas nor a log"
fi

# the plot reads the columns by name: in another order, and with one more, it is the same
mkdir "$tmp/shuffled" && awk -F, -v OFS=, '/^#/ { print; next }
    { line = ($1 == "lab" ? "extra" : "1"); for (i = NF; i >= 1; i--) line = line OFS $i; print line }' \
    "$csv" > "$tmp/shuffled/map.csv"
if ! { tools/bench-plot.sh "$tmp/shuffled/map.csv" > /dev/null && cmp -s "$svg" "$tmp/shuffled/map.svg"; }; then
    fail "bench-plot.sh drew another plot from map.csv with its columns in another order"
fi

tcsv=$tmp/good/CPU-emulation/transpose/bench.csv
for shape in 32,32 31,33 64,64 63,65; do
    grep -q "^transpose,-,[0-9]*,$shape,copy," "$tcsv" 2> /dev/null ||
        fail "transpose.csv has no ${shape/,/x} shape"
done
names_ideas "${tcsv%.csv}.svg" transpose || fail "transpose.svg's key does not name each stage by its idea"
grep -q "square matrices" "${tcsv%.csv}.svg" || fail "transpose.svg does not say it shows the squares"

# VARIANT=all: one CSV holding every variant, a plot a variant (the first as bench.svg)
VARIANT=all BENCH_SIZES="2^10 2^12" COMMIT=tested tools/bench.sh build/emu/solutions "$tmp/all" reduce \
    > "$tmp/all.log" 2>&1 || { cat "$tmp/all.log"; fail "tools/bench.sh VARIANT=all failed on reduce"; }
rcsv=$tmp/all/CPU-emulation/reduce/bench.csv
mapfile -t variants < <(build/emu/solutions/reduce/run list=variants)
[ ${#variants[@]} -ge 2 ] || fail "reduce has fewer than 2 variants: VARIANT=all tests nothing"
rows=$((2 * ($(tests/grade/stages.sh build/emu/solutions reduce) + 1)))
for k in "${!variants[@]}"; do
    variant=${variants[k]} svg=${rcsv%.csv}-${variants[k]}.svg
    [ "$k" != 0 ] || svg=${rcsv%.csv}.svg
    [ "$(grep -c "^reduce,$variant,[0-9]*,[0-9]*,1,[^,]*,ok," "$rcsv" 2> /dev/null)" = $rows ] ||
        fail "reduce.csv does not hold $variant's library and stages, checked ok, at 2 sizes"
    grep -q ">reduce, $variant on CPU emulation (tested)<" "$svg" 2> /dev/null ||
        fail "${svg##*/} is not the plot of reduce's variant $variant"
    names_ideas "$svg" reduce || fail "${svg##*/}'s key does not name each stage by its idea"
    grep -q ">library: " "$svg" 2> /dev/null || fail "${svg##*/}'s key does not name the library"
done
plots=("$tmp/all/CPU-emulation/reduce/"*.svg)
[ ${#plots[@]} = ${#variants[@]} ] ||
    fail "VARIANT=all drew ${#plots[@]} plots of reduce's ${#variants[@]} variants, not one each"
# the same sweep a variant at a time, joined (tools/bench-join.sh): the rows of VARIANT=all
parts=()
for variant in "${variants[@]}"; do
    VARIANT=$variant BENCH_SIZES="2^10 2^12" COMMIT=tested tools/bench.sh build/emu/solutions \
        "$tmp/part-$variant" reduce > /dev/null 2>&1 || fail "tools/bench.sh VARIANT=$variant failed on reduce"
    parts+=("$tmp/part-$variant/CPU-emulation/reduce/bench.csv")
done
tools/bench-join.sh "$tmp/joined" "${parts[@]}" > "$tmp/join.log" 2>&1 ||
    { cat "$tmp/join.log"; fail "tools/bench-join.sh failed on reduce's variants, a run each"; }
jcsv=$tmp/joined/CPU-emulation/reduce/bench.csv
rows_of() { bench_awk -v OFS=, '{ print $col["variant"], $col["n"], $col["stage"], $col["check"] }' "$1"; }
if [ -z "$(rows_of "$jcsv" 2> /dev/null)" ] || ! cmp -s <(rows_of "$rcsv") <(rows_of "$jcsv"); then
    fail "the joined reduce.csv does not hold VARIANT=all's rows, in its order"
fi
grep -q '^# seed: 1, VARIANT=all (tools/bench-join.sh: ' "$jcsv" 2> /dev/null ||
    fail "the joined reduce.csv does not say it was joined"
plots=("$tmp/joined/CPU-emulation/reduce/"*.svg)
[ ${#plots[@]} = ${#variants[@]} ] || fail "bench-join.sh drew ${#plots[@]} plots of ${#variants[@]} variants"
tools/bench-join.sh "$tmp/twice" "${parts[0]}" "${parts[0]}" > "$tmp/twice.log" 2>&1 &&
    fail "bench-join.sh joined a variant to itself"
grep -q "variant ${variants[0]} is in an earlier CSV too" "$tmp/twice.log" ||
    fail "bench-join.sh did not say which variant came twice"
tools/bench-join.sh "$tmp/mixed" "${parts[0]}" "$csv" > "$tmp/mixed.log" 2>&1 &&
    fail "bench-join.sh joined reduce's CSV to map's"

# then the first variant alone: the plots of the others, from the sweep before, go
BENCH_SIZES="2^10" tools/bench.sh build/emu/solutions "$tmp/all" reduce > /dev/null 2>&1 ||
    fail "tools/bench.sh failed on reduce's first variant"
plots=("$tmp/all/CPU-emulation/reduce/"*.svg)
[ "${plots[*]}" = "$tmp/all/CPU-emulation/reduce/bench.svg" ] ||
    fail "a sweep of one variant left another sweep's plots beside its own: ${plots[*]##*/}"

scsv=$tmp/skeleton/CPU-emulation/map/bench.csv
[ "$(grep -c ',WRONG,' "$scsv" 2> /dev/null)" = "$stages" ] ||
    fail "the skeleton's $stages stages are not written as WRONG in its CSV"
grep -q "one thread per element" "${scsv%.csv}.svg" && fail "the skeleton's plot shows a wrong stage"

[ $status = 0 ] && echo "bench-test: the CSV and the plots of a tiny emulated sweep are right, one a" \
    "variant with VARIANT=all or joined from a run a variant, each stage named by its idea; make bench EMU=1" \
    "refuses; make profile takes METRICS=; profile and sanitize name their tool to the driver"
exit $status
