#!/usr/bin/env bash
# bench-join.sh OUT CSV...: make bench's CSVs of one lab, each of some of its
# variants (VARIANT=name, when every variant at once will not fit one sitting
# or one job's time limit), joined into OUT/<gpu>/<lab>/bench.csv as
# VARIANT=all would have written it: one header, the rows in the order the
# CSVs are given (the first variant is bench.svg's), the tables of the logs
# beside them in bench.log; then tools/bench-plot.sh draws a plot a variant. The
# CSVs must agree on lab, GPU, driver, CUDA, commit, seed and stages, and
# no variant may come twice; the header's date spans theirs.
#   BENCH_OUT=/tmp/a make bench LAB=radix VARIANT=u32 ...; then
#   tools/bench-join.sh results /tmp/a/H200/radix/bench.csv /tmp/b/...
set -u
here=$(dirname "$0")
# shellcheck source=tools/bench-csv.sh
. "$here/bench-csv.sh"
die() { echo "bench-join: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: tools/bench-join.sh OUT CSV... (the CSVs of make bench runs, a variant or more each)"
out=$1
shift
field() { sed -n "s/^# $2: //p" "$1" | head -n 1; } # CSV NAME: a header line's value
labs() { bench_awk '{ print $col["lab"] }' "$1" | sort -u; }
columns() { grep -v '^#' "$1" | head -n 1; } # the driver's line of column names
variants() { bench_awk '!seen[$col["variant"]]++ { print $col["variant"] }' "$1"; }

first=$1 seen=" " dates=()
lab=$(labs "$first")
for csv in "$@"; do
    [ -s "$csv" ] || die "$csv: no such CSV (make bench writes <BENCH_OUT>/<gpu>/<lab>/bench.csv)"
    [ -n "$lab" ] || die "$first: no rows"
    [ "$(labs "$csv")" = "$lab" ] ||
        die "$csv: its rows are of lab $(labs "$csv" | tr '\n' ' ')where $first's are of $lab"
    for name in gpu driver cuda commit; do
        [ "$(field "$csv" "$name")" = "$(field "$first" "$name")" ] ||
            die "$csv: its $name, $(field "$csv" "$name"), is not $first's, $(field "$first" "$name")"
    done
    [ "$(field "$csv" seed | sed 's/,.*//')" = "$(field "$first" seed | sed 's/,.*//')" ] ||
        die "$csv: its seed is not $first's"
    [ "$(columns "$csv")" = "$(columns "$first")" ] || die "$csv: its columns are not $first's"
    cmp -s <(grep '^# stage ' "$csv") <(grep '^# stage ' "$first") ||
        die "$csv: its stages are not $first's (another sweep's STAGE=, or another lab)"
    for variant in $(variants "$csv"); do
        [[ $seen == *" $variant "* ]] && die "$csv: variant $variant is in an earlier CSV too"
        seen+="$variant "
    done
    dates+=("$(field "$csv" date)")
done

name=$(field "$first" gpu)
dir=$out/$(bench_folder "$name")/$lab
mkdir -p "$dir" || exit 1
csv=$dir/bench.csv log=$dir/bench.log
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
span=$(printf '%s\n' "${dates[@]}" | sort | sed -n '1p;$p' | uniq | paste -sd '~' | sed 's/~/ to /')
{
    sed -n '/^# stage /q; /^# date: /d; /^# seed: /d; /^#/p' "$first" | sed '/^# commit: /i\
# date: '"$span"
    echo "# seed: $(field "$first" seed | sed 's/,.*//'), VARIANT=all (tools/bench-join.sh: $# runs of make bench, joined)"
    grep '^# stage ' "$first"
    columns "$first"
    # size by size, as VARIANT=all runs them, the CSVs' rows in the order given at each size
    for part in "$@"; do grep -v '^#' "$part" | tail -n +2; done |
        awk -F, -v col="$(columns "$first" | tr , '\n' | grep -nx n | cut -d: -f1)" \
            '!($col in rank) { rank[$col] = ++sizes } { printf "%d\t%d\t%s\n", rank[$col], NR, $0 }' |
        sort -t "$(printf '\t')" -k1,1n -k2,2n | cut -f 3-
} > "$tmp"
for part in "$@"; do [ ! -f "${part%.csv}.log" ] || cat "${part%.csv}.log"; done > "$log.tmp"
mv "$tmp" "$csv" && mv "$log.tmp" "$log" || exit 1
trap - EXIT
for svg in "$dir/bench-"*.svg; do [ ! -e "$svg" ] || rm -f "$svg"; done # another sweep's
echo "bench-join: $lab: $# CSVs, variants$seen-> $csv"
"$here/bench-plot.sh" "$csv"
