#!/usr/bin/env bash
# show-diagnostics.sh LOG STATUS FILE [nvcc]: what the compiler said about a
# lab's own file. Errors as the compiler wrote them; warnings under a marked
# line, since a warning in a kernel is often a bug the tests will find later
# (a signed/unsigned comparison betrays a 32-bit index). Exits with STATUS.
log=$1 status=$2 file=$3 compiler=${4:-}
mark="" plain=""
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then mark=$'\e[1;33m' plain=$'\e[0m'; fi
if [ "$status" -ne 0 ]; then
    if [ "$compiler" = nvcc ]; then
        echo "${mark}nvcc, the GPU's compiler, refuses $file (the emulation does not check this):${plain}"
    fi
    cat "$log"
elif [ -s "$log" ]; then
    echo "${mark}warnings in $file: read each one; a warning in a kernel is often a bug${plain}"
    cat "$log"
fi
exit "$status"
