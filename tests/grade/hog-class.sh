#!/usr/bin/env bash
# hog-class.sh DIR: issue 56's measurement, one submission hogging the CPU
# while its classmates are graded. A radix class of three, each the
# reference solution as handed in (tests/grade/handed-in.sh), graded with
#   make grade LAB=radix EMU=1 JOBS=2 SUBMISSIONS=DIR/class OUT=DIR/grades
# where a-hog, graded first, also starts SPINNERS busy processes (default
# 240) from its run's first process, each spinning HOG_SECONDS (default
# 240), and every process of its run waits them out; HOG=0 makes a-hog
# honest too. Prints the class's time, each submission's and its marks.
# It takes minutes (the machine's every core, for HOG_SECONDS at least):
# run by hand, for results/emulation/sandbox-cpu-share.txt, never by make
# check-grade.
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$1 spinners=${SPINNERS:-240} seconds=${HOG_SECONDS:-240}
rm -rf "$dir/class" "$dir/grades" && mkdir -p "$dir/class" || exit 1
good=$dir/good.cu
tests/grade/handed-in.sh radix > "$good" || exit 1
for name in a-hog b c; do
    mkdir -p "$dir/class/$name/labs/radix" && cp "$good" "$dir/class/$name/labs/radix/radix.cu" || exit 1
done
# in the region for the student's own includes and helpers
hog="#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
__attribute__((constructor)) static void hog(void)
{
    if (mkdir(\"hog\", 0755) == 0)
        for (int k = 0; k < $spinners; k++)
            if (fork() == 0) {
                setsid();
                for (time_t end = time(NULL) + $seconds; time(NULL) < end;) {}
                _exit(0);
            }
    struct stat started;
    if (stat(\"hog\", &started) == 0)
        while (time(NULL) < started.st_mtime + $seconds) sleep(1);
}"
if [ "${HOG:-1}" = 1 ]; then
    HOG_CODE=$hog awk '{ print } /^\/\* TODO your own includes and helpers/ { on = 1 }
        on && /^ \*\/$/ { print ENVIRON["HOG_CODE"]; on = 0 }' "$good" > "$dir/class/a-hog/labs/radix/radix.cu"
    cmp -s "$good" "$dir/class/a-hog/labs/radix/radix.cu" && { echo "hog-class: no hog planted"; exit 1; }
fi

# the judges and the pristine tree first, so that only the grading is timed
mkdir -p "$dir/none" || exit 1
if ! make --no-print-directory grade LAB=radix EMU=1 SUBMISSIONS="$dir/none" OUT="$dir/none.grades" \
        > "$dir/prepare.log" 2>&1; then
    tail -5 "$dir/prepare.log"
    exit 1
fi
start=$(date +%s)
make --no-print-directory grade LAB=radix EMU=1 JOBS=2 SUBMISSIONS="$dir/class" OUT="$dir/grades" \
    > "$dir/grade.log" 2>&1
status=$?
echo "hog-class: $([ "${HOG:-1}" = 1 ] && echo "a-hog runs $spinners busy processes for $seconds s" ||
    echo "no hog"); the class graded in $(($(date +%s) - start)) s, exit $status"
for name in a-hog b c; do
    at=$dir/grades/$name
    printf 'hog-class: %-5s %4s s  %s\n' "$name" \
        "$(($(stat -c %Y "$at/.done" 2> /dev/null || echo 0) - $(stat -c %Y "$at/.name" 2> /dev/null || echo 0)))" \
        "$(sed -n "s/^grade: $name: //p" "$dir/grade.log")"
done
exit $status
