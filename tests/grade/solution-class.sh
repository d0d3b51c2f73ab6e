#!/usr/bin/env bash
# solution-class.sh N DIR: a class of N submissions (DIR/s01 ...), each the
# reference solution of every written lab as a student would hand it in:
# its code spliced into the TODO regions of the skeleton. For timing make
# grade (results/emulation/grading.md), which a correct submission makes slowest.
set -eu
cd "$(dirname "$0")/../.."
n=$1 dir=$2
mkdir -p "$dir/s01"
for f in labs/*/*.cu; do
    lab=$(basename "$f" .cu)
    [ -f "solutions/$lab/$lab.cu" ] || continue
    mkdir -p "$dir/s01/labs/$lab"
    tests/grade/handed-in.sh "$lab" > "$dir/s01/labs/$lab/$lab.cu"
done
for k in $(seq -w 2 "$n"); do
    [ "${#k}" -ge 2 ] || k=0$k
    cp -r "$dir/s01" "$dir/s$k"
done
