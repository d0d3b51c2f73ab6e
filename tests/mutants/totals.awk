# totals.awk: the census's count, from its rows (tab-separated; the mistake
# and the verdict are the last two fields), for mutants.sh and census.sh
# alike. -v seed=S -v emu=0|1. Exits 1 if a mutant is not caught with its
# cause named (unless a ~ or ^ line says why it may not be) or an honest
# variant fails.
BEGIN { FS = "\t" }
NF >= 2 {
    what = $(NF - 1); verdict = $NF
    if (what ~ /^honest:/) { honest++; kept += verdict == "kept: passes every test"; next }
    if (verdict ~ /^not caught (under EMU=1|on a GPU): /) { known++; next }
    total++
    if (verdict !~ /DOES NOT/ && verdict ~ /says it|no \? line/) caught++
    if (verdict ~ /says it first$/ || verdict == "warned, says it") first++
}
END {
    printf "%d of %d planted mistakes caught, with the cause named (seed %s)\n", caught, total, seed
    printf "first report names the cause: %d of %d\n", first, total
    if (known) printf "%d more that %s shows, as noted above\n", known, emu == 1 ? "only a GPU" : "only the emulation"
    if (honest) printf "honest variants kept: %d of %d\n", kept, honest
    exit !(caught == total && kept == honest)
}
