# shellcheck shell=bash
# bench-csv.sh, sourced by bench.sh and bench-plot.sh: make bench's CSV read
# by column name. The driver names the columns once, in the first line that
# is not a # comment; a program that reads a column by its place would read
# another once the driver adds one.

# bench_awk [AWK-OPTION...] PROGRAM CSV: awk over the rows, with col["name"]
# the field of column "name" ($col["stage"], $col["check"]...).
bench_awk() {
    local options=()
    while [ $# -gt 2 ]; do options+=("$1"); shift; done
    awk -F, "${options[@]}" '/^#/ { next }
        !named { for (i = 1; i <= NF; i++) col[$i] = i; named = 1; next }
        '"$1" "$2"
}

# bench_table_ideas LOG: "ID<tab>idea" for each row of the driver's run
# tables in LOG (copy, lib and the stages), the first of each ID: what the
# table's idea column says, found under its title.
bench_table_ideas() {
    awk '{ gsub(/\033\[[0-9;]*m/, "") }
        /^stage +idea +check/ { from = index($0, "idea"); to = index($0, "check"); rules = 0; next }
        from && /^-+ / { if (++rules == 2) from = 0; next }
        from && rules == 1 && !seen[$1]++ {
            idea = substr($0, from, to - from); sub(/ +$/, "", idea); print $1 "\t" idea }' "$1"
}

# bench_folder GPU-NAME: the folder make bench writes a GPU's sweeps to,
# "NVIDIA H100 80GB HBM3" -> H100-80GB-HBM3
bench_folder() { printf '%s' "${1#NVIDIA }" | tr -c 'A-Za-z0-9.\n' '-'; }
