#!/usr/bin/env bash
# grade-test.sh: make grade against a hostile class. Each submission below
# attacks the grader from inside map's stage 1 launcher (the one place a
# submission's code is used), and must change no grade but its own, not the
# grader's tree, nor another submission. Runs under EMU=1, no GPU needed.
set -u
cd "$(dirname "$0")/../.."
class=$(mktemp -d "${TMPDIR:-/tmp}/class.XXXXXX") out=$(mktemp -d "${TMPDIR:-/tmp}/grades.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$class" "$out"' EXIT
good=$class/good.cu
awk -f tools/splice.awk <(sed -e 's|/\* STUDENT |/* TODO |; s|END STUDENT|END TODO|' solutions/map/map.cu) \
    labs/map/map.cu > "$good"

# submit NAME [CODE]: the full solution, with CODE put first in stage 1's
# launcher, inside its TODO region; a name with a space, a quote or a
# backtick grades like any.
submit() {
    mkdir -p "$class/$1/labs/map"
    CODE=${2:-} awk '{ print } /^static void map_stage1\(/ { on = 1 }
        on && /^[ \t]*\*\// { print ENVIRON["CODE"]; on = 0 }' "$good" > "$class/$1/labs/map/map.cu"
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
# the stage table is outside the TODO regions: pointing every stage at stage 1
sed 's/^\(    {"[0-9ab]*", "[^"]*", \)map_stage[0-9ab]*}/\1map_stage1}/' "$good" > "$class/table.cu"
mkdir -p "$class/changes-table/labs/map" && awk '
    /\/\* TODO stage [2-4]/ { skip = 1 } /END TODO/ { if (skip) { print; skip = 0; next } }
    /^[ \t]*\*\// && skip == 1 { print; skip = 2; next } skip == 2 { next } { print }' \
    "$class/table.cu" > "$class/changes-table/labs/map/map.cu"

before=$(git status --porcelain; find common tests tools labs Makefile -type f -exec md5sum {} + | sort)
GRADE_RUN_SECONDS=30 SEED=7 make --no-print-directory grade SUBMISSIONS="$class" OUT="$out" LAB=map EMU=1
after=$(git status --porcelain; find common tests tools labs Makefile -type f -exec md5sum {} + | sort)

status=0
expect() { # NAME POINTS
    local got
    got=$(awk -F'\t' '{ t += $3 } END { print t + 0 }' "$out"/"$1"/map/score.tsv 2> /dev/null)
    if [ "$got" = "$2" ]; then echo "grade-test: $1: $got of 5, as it should"
    else echo "grade-test: $1: $got of 5, expected $2"; status=1; fi
}
name() { # the folder of OUT that grades submission $1 (tools/grade.sh)
    local n
    n=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_')
    [ "$n" = "$1" ] && echo "$n" || echo "$n-$(printf '%s' "$1" | cksum | cut -d' ' -f1)"
}
expect "$(name 'good one')" 5
expect "$(name "it's \`date\` \$(id)")" 5
expect skeleton 0
expect rewrites-grader 5 # its writes fail; its kernels are right
for attack in fakes-summary kills-all hangs reads-solution; do expect $attack 0; done
expect changes-table 1
grep -q "frame changed" "$out"/changes-table/map/frame.note 2> /dev/null ||
    { echo "grade-test: changes-table: the changed stage table was not reported"; status=1; }
[ "$before" = "$after" ] || { echo "grade-test: the grader's tree changed"; status=1; }
grep -q '"score": 5,' "$out/$(name 'good one')/results.json" &&
    [ "$(grep -c '<testcase ' "$out/junit.xml")" = 45 ] && grep -q '^"good one",5,5,5$' "$out/grades.csv" ||
    { echo "grade-test: results.json, junit.xml or grades.csv do not say what the scores say"; status=1; }
[ $status = 0 ] && echo "grade-test: every attack failed"
exit $status
