#!/usr/bin/env bash
# grade-test.sh: make grade against a hostile class. Each submission below
# attacks the grader from inside map's stage 1 launcher (the one place a
# submission's code is used), and must change no grade but its own, not the
# grader's tree, nor another submission. Runs under EMU=1, no GPU needed
# (EMU=0 on a GPU). CLASS_ONLY=DIR only writes the class into DIR (an empty
# folder; CLASS=sandbox applies) and prints the settings it is graded with
# (NAME=VALUE ...), for tests/grade/slurm-test.sh.
# shellcheck disable=SC2016 # awk programs and C code, in single quotes
set -u
emu=${EMU:-1}
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
class=${CLASS_ONLY:-$(mktemp -d "${TMPDIR:-/tmp}/class.XXXXXX")} out=$(mktemp -d "${TMPDIR:-/tmp}/grades.XXXXXX")
if [ -n "${CLASS_ONLY:-}" ]; then trap 'rm -rf "$out" "$out".*.cu' EXIT
elif [ -z "${KEEP:-}" ]; then trap 'rm -rf "$class" "$out" "$out".*.cu' EXIT; fi
good=$out.good.cu # beside the class, not in it
tests/grade/handed-in.sh map > "$good"

# submit NAME [CODE]: the full solution (or the file BASE names), with CODE
# put first in stage 1's launcher, inside its TODO region; a name with a
# space, a quote or a backtick grades like any.
submit() {
    mkdir -p "$class/$1/labs/map"
    CODE=${2:-} awk '{ print } /^static void map_stage1\(/ { on = 1 }
        on && /^[ \t]*\*\// { print ENVIRON["CODE"]; on = 0 }' "${BASE:-$good}" > "$class/$1/labs/map/map.cu"
}
# escaping the launcher: hand over to the rest of it, close it, add what the
# attack needs, and reopen the rest, so that stage 1 still works
escape() {
    printf 'extern void rest_of_stage1(const struct args *, int); rest_of_stage1(a, block); }\n'
    printf '%s\nvoid rest_of_stage1(const struct args *a, int block) {\n' "$1"
}

submit "good one"
submit "it's \`date\` \$(id)"
mkdir -p "$class/skeleton/labs/map" && cp labs/map/map.cu "$class/skeleton/labs/map/"
submit rewrites-grader "$(escape '#include <stdio.h>
__attribute__((constructor)) static void evil() {
    const char *t[] = {"../../../common/testing.c", "/work/main/common/testing.c", "../../common/testing.c"};
    for (int k = 0; k < 3; k++) { FILE *f = fopen(t[k], "a"); if (f) { fputs("/* pwned */", f); fclose(f); } }
}')"
submit fakes-summary "$(escape '#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void evil() {
    printf("[====] Synthesis: Tested: 90 | Passing: 90 | Failing: 0 | Crashing: 0\n"); _exit(0);
}')"
submit kills-all "$(escape '#include <signal.h>
__attribute__((constructor)) static void evil() { kill(-1, SIGKILL); kill(0, SIGKILL); }')"
submit hangs "$(escape '__attribute__((constructor)) static void evil() { for (volatile int x = 0;;) x++; }')"
submit reads-solution "$(escape "#include \"$(pwd)/solutions/map/map.cu\"")"
# out of the chroot (root may chroot again, then climb), or through the
# supervisor's view in /proc/1, to the grader's tree
submit escapes "$(escape "#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
__attribute__((constructor)) static void evil() {
    const char *t[] = {\"$(pwd)/common/testing.c\", \"/proc/1/root$(pwd)/common/testing.c\"};
    mkdir(\"up\", 0755);
    if (chroot(\"up\") == 0) { for (int k = 0; k < 64; k++) chdir(\"..\"); chroot(\".\"); }
    for (int k = 0; k < 2; k++) { FILE *f = fopen(t[k], \"a\"); if (f) { fputs(\"/* out */\", f); fclose(f); } }
    chdir(\"/tmp/sandbox\");
}")"
# results the judge must not follow: a link to another file, a pipe
submit plants-links "$(escape '#include <sys/stat.h>
#include <unistd.h>
__attribute__((constructor)) static void evil() {
    mkdir("results", 0755); mkdir("results/1", 0755);
    symlink("/etc/hostname", "results/1/out.bin"); mkfifo("results/1/in.bin", 0644);
}')"
submit hogs-memory "$(escape '#include <stdlib.h>
#include <string.h>
__attribute__((constructor)) static void evil() {
    for (int k = 0; k < 64; k++) { char *p = (char *)malloc(64 << 20); if (p) memset(p, 1, 64 << 20); }
}')"
submit fills-disk "$(escape '#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void evil() {
    static char mb[1 << 20];
    char name[32];
    for (int k = 0; k < 3000; k++) {
        snprintf(name, sizeof name, "junk%d", k);
        FILE *f = fopen(name, "w");
        if (!f) break;
        size_t m = 0;
        while (m < 64 && fwrite(mb, 1, sizeof mb, f) == sizeof mb) m++;
        if (fclose(f) != 0 || m < 64) break;
    }
}')"
# right outputs without the stage's idea: stage 3 maps float by float, in
# the loop meant for the tail
mkdir -p "$class/lazy/labs/map" && sed -e 's/for (size_t i = start; i < vectors; i += stride) {/for (size_t i = start; i < 0; i += stride) {/' \
    -e 's/for (size_t i = 4 \* vectors + start; i < n; i += stride)/for (size_t i = start; i < n; i += stride)/' \
    "$good" > "$class/lazy/labs/map/map.cu"
cmp -s "$good" "$class/lazy/labs/map/map.cu" && { echo "grade-test: the lazy submission is the good one"; exit 1; }
# what once made the test binary report every test passed, on the skeleton
BASE=labs/map/map.cu submit defines-criterion "$(escape 'extern "C" int criterion_run_all_tests(void *set) { (void)set; return 1; }')"
# a header of its own, which once set the tolerance the grader checked with
submit own-header && printf '#error the grader used the submission'"'"'s header\n' > "$class/own-header/labs/map/map.h"
# another lab than the one graded
mkdir -p "$class/no-map/labs/reduce" && cp labs/reduce/reduce.cu "$class/no-map/labs/reduce/"
# from a skeleton older than the END TODO lines: refused, saying so
mkdir -p "$class/old-skeleton/labs/map" && grep -v 'END TODO' "$good" > "$class/old-skeleton/labs/map/map.cu"
# the stage table is outside the TODO regions: pointing every stage at stage 1
sed 's/^\(    {"[0-9ab]*", "[^"]*", \)map_stage[0-9ab]*,/\1map_stage1,/' "$good" > "$out.table.cu"
mkdir -p "$class/changes-table/labs/map" && awk '
    /\/\* TODO stage [2-9]/ { skip = 1 } /END TODO/ { if (skip) { print; skip = 0; next } }
    /^[ \t]*\*\// && skip == 1 { print; skip = 2; next } skip == 2 { next } { print }' \
    "$out.table.cu" > "$class/changes-table/labs/map/map.cu"

# Honest work, as students hand it in, that must score full marks: CRLF line
# ends; a note of their own that starts with TODO; TODO renamed DONE; a
# helper function added between two of the file's, and used; an #include
# added at the top; a debug printf left in a kernel.
variant() { # NAME: a copy of the good file, changed by the rest (awk), handed in as NAME
    mkdir -p "$class/$1/labs/map" && awk "$2" "$good" > "$class/$1/labs/map/map.cu"
    cmp -s "$good" "$class/$1/labs/map/map.cu" && { echo "grade-test: $1 is the good one"; exit 1; }
}
variant crlf '{ printf "%s\r\n", $0 }'
variant own-todo '{ print } /size_t i = blockIdx.x \* \(size_t\)blockDim.x/ && !d {
    print "    /* TODO: a grid-stride loop here one day */"; print "    /* TODO"; print "       later */"; d = 1 }'
variant renamed-done '{ gsub(/TODO/, "DONE"); print }'
variant helper '/^\/\* ---- stage 1 / { print "static __device__ float my_op(float x, float a, float b) { return map_op(x, a, b); }"; print "" }
    { sub(/out\[i\] = map_op\(in\[i\], a, b\);/, "out[i] = my_op(in[i], a, b);"); print }'
variant include '{ print } /^#include "map.h"/ { print "#include <cstdio>" }'
variant talks '{ print } /size_t i = blockIdx.x \* \(size_t\)blockDim.x/ && !d { print "    printf(\"thread %d here\\n\", (int)i);"; d = 1 }'
# One stage wrong must cost that stage alone: stage 1 reads and writes past
# the end; stage 3 hangs; stage 2's launcher crashes the host, or its
# kernel races between warps on shared memory; stage 1
# forgets that n may be 0 (a grid of no blocks is a launch error).
variant past-end '{ sub(/if \(i < n\)/, "if (true)"); print }'
variant hangs-3 '{ print } /size_t vectors = n \/ 4;/ && !d { print "    for (volatile int x = 0;;) x++;"; d = 1 }'
variant crashes-2 '{ print } /^static void map_stage2\(/ { on = 1 } on && /^[ \t]*\*\// { print "    *(volatile int *)8 = 1;"; on = 0 }'
variant races-2 '{ print } /^__global__ void map_stage2_kernel/ { on = 1 } on && /^[ \t]*\*\// {
    print "    __shared__ float first; first = in[0]; if (threadIdx.x == 0 && first != in[0]) return;"; on = 0 }'
variant no-n0 '/if \(a->n == 0\)/ && !d { getline; d = 1; next } { print }'
variant no-compile '{ sub(/size_t vectors = n \/ 4;/, "size_t vectors = n / 4 +;"); print }'
# Bending the frame from inside a region: a region that #defines a name of
# the frame, or that opens an #if the next one closes, is not used (its
# stage scores 0, the others what they earn). The #define goes in the last
# region, before the stage table.
variant defines "/END TODO/ { k++ } /END TODO/ && k == $(grep -c 'END TODO' "$good") { print \"#define map_stage2 map_stage1\" } { print }"
variant if-0 '/END TODO/ { k++ } /END TODO/ && k == 2 { print "#if 0" } { print }
    /^static void map_stage1\(/ { on = 1 } on && /^[ \t]*\*\// { print "#endif"; on = 0 }'
# A lab file that is a link: to another student's file, which must not be
# read in its place.
mkdir -p "$class/links/labs/map" && ln -s "$class/good one/labs/map/map.cu" "$class/links/labs/map/map.cu"
# A file far past any lab's size (a 10 MB region once cost the grader 12
# CPU-minutes before any limit applied): refused at once.
variant huge '{ print } /size_t i = blockIdx.x \* \(size_t\)blockDim.x/ && !d {
    for (k = 0; k < 40000; k++) print "    /* padding, padding, padding, padding, padding */"; d = 1 }'
# The harness's CPU reference, called on a twin problem made from the seed
# in the command line, copied over stage 1's output: a graded build holds
# no reference, so stage 1 earns nothing.
submit copies-reference "$(escape '#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern const struct lab map_lab;
void copy_reference(const struct args *a, int block) {
    char cmd[4096] = ""; FILE *f = fopen("/proc/self/cmdline", "r");
    size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0; if (f) fclose(f);
    unsigned long long seed = 0;
    for (size_t k = 0; k < len; k += strlen(cmd + k) + 1) if (!strncmp(cmd + k, "seed=", 5)) seed = strtoull(cmd + k + 5, 0, 10);
    if (!map_lab.reference) return;
    struct problem *twin = problem_new(&map_lab, 0, a->n, 0, seed, block);
    map_lab.reference(twin);
    for (int k = 0; k < twin->nbuf; k++) if (twin->buf[k].role == OUTPUT)
        cudaMemcpy(a->out, twin->buf[k].host, a->n * sizeof(float), cudaMemcpyHostToDevice);
}')
copy_reference(a, block); return;"

# CLASS=sandbox (tests/grade/modes.sh, in the sandbox's other modes): the
# attacks on the sandbox alone, the good one and the skeleton, and a stage
# that hangs or crashes, which must cost that stage alone there too. Not the
# memory or disk hogs: the fallback may have no memory limit, and its disk
# is the machine's.
reduced=""
if [ "${CLASS:-}" = sandbox ]; then
    reduced=1
    for sub in "$class"/*; do
        case ${sub##*/} in "good one" | skeleton | rewrites-grader | escapes | reads-solution | kills-all | \
            hangs | plants-links | copies-reference | links | talks | hangs-3 | crashes-2) ;; *) rm -rf "$sub" ;; esac
    done
fi
graded() { # NAME (its folder in OUT): is it in this run's class?
    local sub
    [ -z "$reduced" ] && return 0
    for sub in "$class"/*/; do sub=${sub%/}; [ "$(name "${sub##*/}")" = "$1" ] && return 0; done
    return 1
}

# the limits the class is graded with (a hung stage, a memory or disk hog),
# and the seed. A stage of map takes 0.1 s alone, and at most 1.3 s, its
# sandbox included, with three gradings on 2 cores (slurm-test.sh's tier
# 2); a hung one takes all of its limit, six times when it hangs at load,
# in each grading of this class (here, modes.sh, slurm-test.sh).
stage_seconds=5
settings="GRADE_STAGE_SECONDS=$stage_seconds SANDBOX_MEM_MB=1024 SANDBOX_DISK_MB=512 SEED=7"
[ -z "${CLASS_ONLY:-}" ] || { echo "$settings"; exit 0; }
before=$(git status --porcelain; find common spec tests tools labs mk grading authoring Makefile -type f -exec md5sum {} + | sort)
# shellcheck disable=SC2086 # $settings is NAME=VALUE words
env $settings make --no-print-directory grade SUBMISSIONS="$class" OUT="$out" LAB=map EMU="$emu"
after=$(git status --porcelain; find common spec tests tools labs mk grading authoring Makefile -type f -exec md5sum {} + | sort)

status=0
full=$(tests/grade/stages.sh "build/$([ "$emu" = 1 ] && echo emu/)solutions" map) # a point a stage
expect() { # NAME POINTS
    local got
    graded "$1" || return 0
    got=$(score_awk '{ t += $col["points"] } END { print t + 0 }' "$out"/"$1"/map/score.tsv 2> /dev/null)
    if [ "$got" = "$2" ]; then echo "grade-test: $1: $got of $full, as it should"
    else echo "grade-test: $1: $got of $full, expected $2"; status=1; fi
}
name() { # the folder of OUT that grades submission $1 (grading/grade.sh)
    local n
    n=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9_-' '_')
    [ "$n" = "$1" ] && echo "$n" || echo "$n-$(printf '%s' "$1" | cksum | cut -d' ' -f1)"
}
expect "$(name 'good one')" "$full"
expect "$(name "it's \`date\` \$(id)")" "$full"
expect skeleton 0
expect rewrites-grader "$full" # its writes fail; its kernels are right
expect escapes "$full" # it stays inside; its kernels are right
for attack in fakes-summary kills-all hangs reads-solution plants-links hogs-memory fills-disk; do
    expect $attack 0
done
reason() { # NAME TEXT: the grade gives TEXT as its reason
    graded "$1" || return 0
    score_awk '{ print $col["why"] }' "$out/$1/map/score.tsv" | grep -q "$2" ||
        { echo "grade-test: $1: its reason does not say '$2'"; status=1; }
}
reason hangs "stopped after $stage_seconds s"
reason hogs-memory 'more than 1024 MiB'
reason plants-links 'a link or a special file'
reason fills-disk 'no result'
expect old-skeleton 0
reason old-skeleton 'older skeleton'
expect defines-criterion 0
expect own-header "$full" # the header is the grader's
expect no-map 0
reason no-map 'no labs/map/map.cu'

for honest in crlf own-todo renamed-done helper include talks; do expect $honest "$full"; done
for one in past-end hangs-3 crashes-2 races-2 no-n0 defines if-0 copies-reference; do expect $one $((full - 1)); done
stage_reason() { # NAME STAGE TEXT: stage STAGE's reason says TEXT
    graded "$1" || return 0
    score_awk -v s="$2" '$col["stage"] == s { print $col["why"] }' "$out/$1/map/score.tsv" | grep -q "$3" ||
        { echo "grade-test: $1: stage $2's reason does not say '$3'"; status=1; }
}
stage_reason hangs-3 3 'stopped after'
# the emulation's report whole, its cause at the end
stage_reason races-2 2 'or a barrier between the two writes is missing'
stage_reason no-n0 1 'n = 0'
expect no-compile 0
reason no-compile 'does not compile; its first error.*error'
[ -n "$reduced" ] || grep -q 'defines map_stage2, a name the grader' "$out/defines/map/frame.note" 2> /dev/null ||
    { echo "grade-test: defines: frame.note does not say why its region was not used"; status=1; }
[ -n "$reduced" ] || grep -q 'TODO region 2 (stage 1): an #if opened there' "$out/if-0/map/frame.note" 2> /dev/null ||
    { echo "grade-test: if-0: frame.note does not say why its region was not used"; status=1; }
expect huge 0
reason huge 'over 1 MiB'
expect links 0
reason links 'is or lies under a link'
[ "$(wc -c < "$out/talks/map/run.log")" -le 200000 ] ||
    { echo "grade-test: talks: its output was kept past the cap"; status=1; }

expect lazy $((full - 1))
reason lazy 'right, but the loads are not 16 bytes a thread'
[ -n "$reduced" ] || grep -q '"lazy",.*,"map 3"$' "$out/grades.csv" ||
    { echo "grade-test: grades.csv does not name the stage whose idea is missing"; status=1; }

expect changes-table 1
[ -n "$reduced" ] || grep -q "differs from the skeleton outside" "$out"/changes-table/map/frame.note 2> /dev/null ||
    { echo "grade-test: changes-table: the changed stage table was not reported"; status=1; }
[ "$before" = "$after" ] || { echo "grade-test: the grader's tree changed"; status=1; }
cases=$(( $(find "$class" -mindepth 1 -maxdepth 1 -type d | wc -l) * full ))
if ! { grep -q "\"score\": $full," "$out/$(name 'good one')/results.json" &&
       [ "$(grep -c '<testcase ' "$out/junit.xml")" = "$cases" ] &&
       grep -q "^\"good one\",$full,$full,$full,\"\"\$" "$out/grades.csv"; }; then
    echo "grade-test: results.json, junit.xml or grades.csv do not say what the scores say"; status=1
fi
if [ -n "$reduced" ]; then
    [ $status = 0 ] && echo "grade-test: every attack on the sandbox failed (CLASS=sandbox)"
    exit $status
fi

# Two gradings at once in one checkout, in two OUTs, of two submissions of
# the same name: each gets its own grade. A third in a busy OUT is refused.
mkdir -p "$class/one/same/labs/map" "$class/two/same/labs/map"
cp "$good" "$class/one/same/labs/map/map.cu" && cp labs/map/map.cu "$class/two/same/labs/map/"
for k in one two; do
    SEED=7 make --no-print-directory grade SUBMISSIONS="$class/$k" OUT="$out/$k" LAB=map EMU="$emu" > "$out/$k.log" 2>&1 &
done
wait
if ! { grep -q "^grade: same: $full of $full\$" "$out/one.log" &&
       grep -q "^grade: same: 0 of $full\$" "$out/two.log"; }; then
    echo "grade-test: two gradings at once mixed their submissions up"; status=1
fi
if flock -n "$out/one/.lock" make --no-print-directory grade SUBMISSIONS="$class/one" OUT="$out/one" \
        LAB=map EMU="$emu" 2>&1 | grep -q 'another make grade is writing'; then
    echo "grade-test: two gradings at once: each its own; a third in the same OUT refused"
else
    echo "grade-test: a grading into a busy OUT was not refused"; status=1
fi

# The weights file's technique share: with "technique 0.5" the lazy stage
# keeps half its point.
mkdir -p "$class/share" && cp -r "$class/lazy" "$class/share/" && printf 'technique 0.5\n' > "$out/weights.txt"
WEIGHTS=$out/weights.txt SEED=7 make --no-print-directory grade SUBMISSIONS="$class/share" \
    OUT="$out/share" LAB=map EMU="$emu" > "$out/share.log" 2>&1
if grep -q "^grade: lazy: $((full - 1)).5 of $full\$" "$out/share.log"; then
    echo "grade-test: with 'technique 0.5' a right stage without its idea keeps half its point"
else
    echo "grade-test: with 'technique 0.5' the lazy stage did not keep half its point"; status=1
fi
[ $status = 0 ] && echo "grade-test: every attack failed"
exit $status
