#!/usr/bin/env bash
# figures-test.sh: the figure checker (authoring/figures.c) must be able to
# fail. In a tree of its own it writes a bench CSV, a run record with
# sections, a note, a handout and a model answer whose figures all hold;
# the checker must pass them. Then it plants one wrong figure at a time,
# one of each kind and rule (a time from a named section, a ratio of two
# quoted times, a count, a row's time at the wrong size, a share of the
# copy, a ratio of two rows, a time per element, a speed-up over the CPU,
# a table cell under the wrong size's column, a bandwidth, a figure of a
# model answer covered by its opening, and of an appendix's answer, A1),
# and each must be reported at its
# line, with the cited file and the nearest value. Last, two wrong figures
# planted into a copy of a real handout's "What to expect" section. `make
# check` runs it. Usage: tests/figures/figures-test.sh build/figures
set -u
cd "$(dirname "$0")/../.." || exit 1
figures=$(realpath "${1:-build/figures}")
repo=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/figures-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "figures-test: $*"; status=1; }

cd "$tmp" || exit 1
mkdir -p results/bench/TestGPU notebook handouts solutions/lab
cat > results/bench/TestGPU/lab.csv << 'CSV'
# make bench LAB=lab: a made-up sweep
lab,variant,n,rows,cols,stage,check,ms,gbps,copy_share,cpu_ms,vs_cpu
lab,int,1024,1024,1,copy,-,0.006000,1.37,1.0000,0.004000,0.667
lab,int,1024,1024,1,lib,ok,0.007000,1.17,0.8571,0.004000,0.571
lab,int,1024,1024,1,1,ok,0.008000,1.02,0.7500,0.004000,0.500
lab,int,1048576,1048576,1,copy,-,0.010000,838.86,1.0000,1.000000,100.000
lab,int,1048576,1048576,1,lib,ok,0.012000,699.05,0.8333,1.000000,83.333
lab,int,1048576,1048576,1,1,ok,0.020000,419.43,0.5000,1.000000,50.000
CSV
cat > results/runs.md << 'MD'
# Runs

## Issue 7: the last stage

stage 1 took 0.7172 ms; lab 4's stage 3, 1.15 ms.

## Earlier runs

stage 1 took 0.7272 ms and 2.5 ms.
MD
printf 'hazards: 12,402,687\n' > notebook/note.txt
cat > handouts/01-lab.md << 'MD'
# Lab

Stage 1 took 0.7172 ms (results/runs.md, "Issue 7"), 1.6 times quicker than
1.15 ms.

The profile counted 12 402 687 conflicts (notebook/note.txt), at most 9.9 µs
each (2 × 5 = 10 µs).

```text
stage 1 took 99.9 ms (results/runs.md)
```

# What to expect

![The sweep (make bench, results/bench/TestGPU/lab.csv).](../results/bench/TestGPU/lab.svg)

At $2^{20}$ stage 1 took 20.0 µs, 50 % of the copy, 1.67 times the
library's time, 0.019 ns an element, and was 50 times faster than the CPU.
At $2^{10}$ it moved 1.02 GB/s.

| $n$           | $2^{10}$ | $2^{20}$ |
|---------------|----------|----------|
| stage 1 / lib | 1.14     | 1.67     |
MD
cat > solutions/lab/ANSWERS.md << 'MD'
# lab: model answers

Answers 2 and A1 quote results/bench/TestGPU/lab.csv.

## 1. **A question**

Stage 1 took 99.9 ms, a figure nothing cites.

## 2. **Another**

Stage 1 took 20.0 µs at $2^{20}$.

## A1. **The appendix's**

Stage 1 took 8.0 µs at 1024.
MD

out=$("$figures" handouts/01-lab.md solutions/lab/ANSWERS.md) || fail "the figures that hold are reported: $out"
grep -q '^figures: 14 checked in 2 files: 14 passed, 0 failed' <<< "$out" ||
    fail "not every figure of the fixture was checked: ${out##*$'\n'}"

# FILE OLD NEW NEAREST: plant NEW for OLD on the first line that holds OLD; the
# report must name that line, NEW and NEAREST
plant() {
    local file=$1 old=$2 new=$3 nearest=$4 line copy
    line=$(grep -nF -m 1 "$old" "$file" | cut -d: -f1)
    copy=planted/$file   # another folder: ANSWERS.md keeps its name
    mkdir -p "$(dirname "$copy")"
    sed "${line}s/$old/$new/" "$file" > "$copy"
    cmp -s "$file" "$copy" && { fail "$file holds no $old"; return; }
    out=$("$figures" "$copy")
    grep -qF "$copy:$line: $new" <<< "$out" ||
        fail "$new for $old at $file:$line is not reported: $out"
    grep -F "$copy:$line: $new" <<< "$out" | grep -qF "nearest: $nearest" ||
        fail "$new for $old at $file:$line: not the nearest $nearest: $out"
}
h=handouts/01-lab.md
plant $h 0.7172 0.7272 "0.7172 ms"  # a time, outside its section
plant $h 1.6 2.6 ""  # a ratio of two quoted times
plant $h "12 402 687" "12 402 688" "12402687"  # a count
plant $h 20.0 14.0 "12 µs"  # a row's time, at another size
plant $h "50 %" "75 %" "83.3 %"  # a share of the copy, at another size
plant $h 1.67 2.29 "2 times"  # a ratio of two rows
plant $h 0.019 0.026 "0.0191 ns"  # a time per element
plant $h "50 times" "68 times" "83.3 times"  # a speed-up over the CPU
plant $h 1.02 1.99 "1.37 GB/s"  # a bandwidth
plant $h 1.14 1.67 "1.37"  # a table cell, under its column's size
plant solutions/lab/ANSWERS.md 20.0 24.0 "20 µs"  # a model answer, covered by its opening
plant solutions/lab/ANSWERS.md 8.0 9.0 "8 µs"  # an appendix's answer, covered by its opening

# a real handout: two wrong figures planted after the plot of its "What to expect"
cp -r "$repo/results" . 2> /dev/null
[ -d "$repo/notebook" ] && cp -r "$repo/notebook" .
real=$(grep -l '^# What to expect' "$repo"/handouts/*.md | head -n 1)
if [ -z "$real" ]; then
    fail "no handout has a section \"What to expect\""
else
    copy=handouts/$(basename "$real")
    awk '{ print } /^# What to expect/ { s = 1 } s && /\]\(\.\.\/(results|notebook)\// && !done {
        print ""; print "Planted: at $2^{20}$ stage 1 took 4321.5 µs and held 12.5 % of the copy."
        done = 1 }' "$real" > "$copy"
    line=$(grep -n '^Planted:' "$copy" | cut -d: -f1)
    out=$("$figures" "$copy")
    for fig in "4321.5 µs" "12.5 %"; do
        grep -qF "$copy:$line: $fig is not in results/" <<< "$out" ||
            fail "$fig planted in a copy of $real is not reported"
    done
fi
[ "$status" = 0 ] && echo "figures-test: every planted figure was reported, with its line and the nearest value"
exit "$status"
