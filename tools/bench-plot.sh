#!/usr/bin/env bash
# bench-plot.sh CSV...: make bench's plots of each CSV, with gnuplot
# (tools/bench.gp): for each variant in the file, the stages that passed
# their check, the library and the copy, each named in the key by its idea.
# The first variant's plot is the .svg beside the CSV (bench.svg, which the
# handouts show); each other variant's is bench-<variant>.svg. A matrix lab's
# plot shows its squares; the odd shapes stay in the CSV.
# Run it alone to redraw plots from a machine without gnuplot.
set -u
script=$(dirname "$0")/bench.gp
# shellcheck source=tools/bench-csv.sh
. "$(dirname "$0")/bench-csv.sh"
command -v gnuplot > /dev/null 2>&1 ||
    { echo "bench-plot: no plots: gnuplot is missing (make deps installs it)"; exit 1; }
first() { bench_awk "{ print \$col[\"$1\"]; exit }" "$2"; } # COLUMN CSV: its first row's

# CSV: "ID<tab>idea" a row, from the header's "# stage ID: idea" lines, or
# for a CSV written before them, from the driver's tables in the log beside it.
ideas() {
    if grep -q '^# stage ' "$1"; then
        sed -n 's/^# stage \([^:]*\): /\1\t/p' "$1"
    elif [ -f "${1%.csv}.log" ]; then
        bench_table_ideas "${1%.csv}.log"
    fi
}

# ID IDEA: the row's line in the key
key_line() {
    case $1 in
        copy) echo "copy${2:+: $2}" ;;
        lib) echo "library${2:+: $2}" ;;
        *) if [ -n "$2" ]; then echo "$1: $2"; else echo "stage $1"; fi ;;
    esac
}
gp_string() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; } # TEXT, quoted for gnuplot

# CSV VARIANT SVG: one variant's plot (of the CSV's lab, ideas, gpu, commit, xtitle)
plot() {
    local csv=$1 variant=$2 svg=$3 stages data what keys="" k=0 s idea
    stages=$(bench_awk -v v="$variant" '$col["variant"] == v &&
                 ($col["check"] == "ok" || $col["stage"] == "copy") && !seen[$col["stage"]]++ {
                     printf "%s ", $col["stage"] }' "$csv")
    for s in $stages; do
        idea=$(awk -F '\t' -v s="$s" '$1 == s { print $2; exit }' <<< "$ideas")
        keys+="legend[$((++k))] = $(gp_string "$(key_line "$s" "$idea")"); "
    done
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
    if gnuplot -e "data=$(gp_string "$data"); svg=$(gp_string "$svg"); stages='$stages'" \
               -e "array legend[$k]; $keys" \
               -e "title=$(gp_string "$what on $gpu ($commit)"); xtitle=$(gp_string "$xtitle")" \
               "$script" 2> "$svg.gnuplot"; then
        echo "bench-plot: $svg"
    else
        cat "$svg.gnuplot"
        echo "bench-plot: gnuplot could not draw $svg"
        status=1
    fi
    rm -f "$svg.gnuplot" "$data"
}

status=0
for csv in "$@"; do
    lab=$(first lab "$csv") ideas=$(ideas "$csv")
    gpu=$(sed -n 's/^# gpu: //p' "$csv") commit=$(sed -n 's/^# commit: //p' "$csv")
    xtitle="n (elements)"
    [ "$(first cols "$csv")" = 1 ] || xtitle="n = rows x cols (square matrices; the odd shapes are in the CSV)"
    svg=${csv%.csv}.svg
    for variant in $(bench_awk '!seen[$col["variant"]]++ { print $col["variant"] }' "$csv"); do
        plot "$csv" "$variant" "${svg:-${csv%.csv}-$variant.svg}"
        svg=
    done
done
exit $status
