#!/usr/bin/env bash
# bench-plot.sh CSV...: make bench's plot of each CSV, with gnuplot
# (tools/bench.gp), as the .svg beside it: the stages that passed their
# check, the library and the copy, for the first variant in the file.
# Run it alone to redraw plots from a machine without gnuplot.
set -u
script=$(dirname "$0")/bench.gp
command -v gnuplot > /dev/null 2>&1 ||
    { echo "bench-plot: no plots: gnuplot is missing (make deps installs it)"; exit 1; }
status=0
for csv in "$@"; do
    fields() { awk -F, '!/^#/ && $1 != "lab" { print; exit }' "$csv" | cut -d, -f"$1"; }
    lab=$(fields 1) variant=$(fields 2)
    stages=$(awk -F, '!/^#/ && $1 != "lab" && ($7 == "ok" || $6 == "copy") && !seen[$6]++ {
                          printf "%s ", $6 }' "$csv")
    gpu=$(sed -n 's/^# gpu: //p' "$csv") commit=$(sed -n 's/^# commit: //p' "$csv")
    what=$lab
    [ "$variant" = "-" ] || what="$lab, $variant"
    # One block a stage for gnuplot's `index`, rows in order of n: n, ns an
    # element, share of the copy, speedup over the CPU. Matrix labs: squares.
    data=$(mktemp) || exit 1
    for s in $stages; do
        awk -F, -v v="$variant" -v s="$s" '!/^#/ && $2 == v && $6 == s && ($7 == "ok" || s == "copy") &&
            ($5 == 1 || $4 == $5) { print $3, $8 * 1e6 / $3, 100 * $10, (s == "copy" ? "NaN" : $12) }' \
            "$csv" | sort -n
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
