#!/usr/bin/env bash
# bench-plot.sh CSV...: make bench's plot of each CSV, with gnuplot
# (tools/bench.gp), as the .svg beside it: the stages that passed their
# check, the library and the copy, for the first variant in the file.
# Run it alone to redraw plots from a machine without gnuplot.
set -u
script=$(dirname "$0")/bench.gp
# shellcheck source=tools/bench-csv.sh
. "$(dirname "$0")/bench-csv.sh"
command -v gnuplot > /dev/null 2>&1 ||
    { echo "bench-plot: no plots: gnuplot is missing (make deps installs it)"; exit 1; }
first() { bench_awk "{ print \$col[\"$1\"]; exit }" "$2"; } # COLUMN CSV: its first row's

status=0
for csv in "$@"; do
    lab=$(first lab "$csv") variant=$(first variant "$csv")
    stages=$(bench_awk '($col["check"] == "ok" || $col["stage"] == "copy") && !seen[$col["stage"]]++ {
                            printf "%s ", $col["stage"] }' "$csv")
    gpu=$(sed -n 's/^# gpu: //p' "$csv") commit=$(sed -n 's/^# commit: //p' "$csv")
    what=$lab
    [ "$variant" = "-" ] || what="$lab, $variant"
    # One block a stage for gnuplot's `index`, rows in order of n: n, ns an
    # element, share of the copy, speedup over the CPU. Matrix labs: squares.
    data=$(mktemp) || exit 1
    for s in $stages; do
        bench_awk -v v="$variant" -v s="$s" '$col["variant"] == v && $col["stage"] == s &&
            ($col["check"] == "ok" || s == "copy") && ($col["cols"] == 1 || $col["rows"] == $col["cols"]) {
                print $col["n"], $col["ms"] * 1e6 / $col["n"], 100 * $col["copy_share"],
                      (s == "copy" ? "NaN" : $col["vs_cpu"]) }' "$csv" | sort -n
        printf '\n\n'
    done > "$data"
    # gnuplot warns of ranges it widens (one size alone): shown only if it fails
    if gnuplot -e "data='$data'; svg='${csv%.csv}.svg'; stages='$stages'" \
               -e "title='$what on $gpu ($commit)'" "$script" 2> "$csv.gnuplot"; then
        echo "bench-plot: ${csv%.csv}.svg"
    else
        cat "$csv.gnuplot"
        echo "bench-plot: gnuplot could not draw $csv"
        status=1
    fi
    rm -f "$csv.gnuplot" "$data"
done
exit $status
