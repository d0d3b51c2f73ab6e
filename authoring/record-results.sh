#!/usr/bin/env bash
# record-results.sh FILE TITLE COMMAND...: run each command on this
# machine's GPU and write what it printed to FILE as Markdown, under a
# header giving the date, the GPU and its clocks as found, the CUDA
# version, the commit and the machine, so every number has its provenance.
# The file is the tool's: to change it, record again (authoring/record.sh,
# make record). COMMIT= names the commit where git cannot.
#   authoring/record-results.sh results/H200/check.md "make check" "make -j16 check"
# --append FILE COMMAND...: a record too long for one call of a lent GPU
# (the mutant census) goes on in a later one: each command is added to
# FILE, which must have been recorded at the same commit on the same GPU,
# under a line giving its own date and machine.
set -u
append=
[ "${1:-}" != --append ] || { append=1; shift; }
[ $# -ge $((3 - append)) ] || {
    echo "usage: authoring/record-results.sh FILE TITLE COMMAND... | --append FILE COMMAND..." >&2; exit 2; }
out=$1 title=${2:-}
shift $((2 - append))
commit=${COMMIT:-$(git rev-parse --short HEAD 2> /dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2> /dev/null | head -n 1)
# The card's clocks and power as found: the workbook never sets them, and
# make profile tells Nsight Compute not to (--clock-control none).
clocks=$(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,persistence_mode,power.limit \
             --format=csv,noheader 2> /dev/null | head -n 1 |
         awk -F ', ' 'NF == 5 { printf "SM %s now, %s at most; memory %s; persistence %s; power limit %s", $1, $2, $3, $4, $5 }')
mkdir -p "$(dirname "$out")" || exit 1

# Each command's section, as the commands print it.
sections() {
    local cmd status
    for cmd in "$@"; do
        echo
        echo "## \`$cmd\`"
        echo
        if [ -n "$append" ]; then
            echo "- recorded in a later call: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPU cores"
            echo
        fi
        echo '```text'
        eval "$cmd" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
        status=${PIPESTATUS[0]}
        [ "$status" = 0 ] || echo "[exit status $status]"
        echo '```'
    done
}

# written elsewhere first: a command may be make check, which reads results/
tmp=$(mktemp) || exit 1
if [ -n "$append" ]; then
    if ! grep -qxF -- "- workbook commit: $commit" "$out" 2> /dev/null ||
        ! grep -qxF -- "- GPU: ${gpu:-none found} (name, driver, memory)" "$out"; then
        echo "record-results: $out was not recorded at $commit on ${gpu:-no GPU}: record it anew" >&2
        exit 1
    fi
    cp "$out" "$tmp" && sections "$@" >> "$tmp" && mv "$tmp" "$out" && chmod 644 "$out"
    exit
fi
{
    echo "<!-- Written by authoring/record-results.sh: record again rather than edit. -->"
    echo "# $title on ${gpu:+${gpu%%,*}}${gpu:-no GPU (this machine has none)}"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- GPU: ${gpu:-none found} (name, driver, memory)"
    echo "- clocks: as found, never set: ${clocks:-not reported}"
    echo "- CUDA: $(nvcc --version 2> /dev/null | tail -n 1)"
    echo "- workbook commit: $commit"
    echo "- machine: $(nproc) CPU cores; the CPU reference runs on one"
    sections "$@"
} > "$tmp" && mv "$tmp" "$out" && chmod 644 "$out"
