#!/usr/bin/env bash
# record-results.sh FILE COMMAND...: run each command on this machine's GPU and
# write what it printed to FILE as Markdown, with the date, the GPU, the CUDA
# version, the commit and the commands, so every number has its provenance.
#   authoring/record-results.sh results/H100.md "make check" "make test LAB=map SOLUTION=1"
set -u
out=$1
shift
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)
{
    echo "# Run tables on ${gpu%%,*}"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- GPU: ${gpu:-none found} (name, driver, memory)"
    echo "- CUDA: $(nvcc --version | tail -n 1)"
    echo "- workbook commit: $commit"
    echo "- machine: $(nproc) CPU cores; the CPU reference runs on one"
    for cmd in "$@"; do
        echo
        echo "## \`$cmd\`"
        echo
        echo '```text'
        eval "$cmd" 2>&1
        echo '```'
    done
} > "$out"
