#!/usr/bin/env bash
# gradescope-test.sh: the autograder of make gradescope, run as Gradescope
# runs it, in a folder standing for /autograder: setup.sh once, then
# run_autograder for each upload. Root in a container that refuses user
# namespaces is tried too (SANDBOX=none). LAB=map alone, to stay short.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$(mktemp -d "${TMPDIR:-/tmp}/autograder.XXXXXX") && chmod 755 "$root" # as /autograder is
[ -n "${KEEP:-}" ] || trap 'rm -rf "$root"' EXIT
status=0
fail() { echo "gradescope-test: $*"; status=1; }

make --no-print-directory gradescope > /dev/null || exit 1
mkdir "$root/source" && unzip -q build/gradescope/autograder.zip -d "$root/source" || exit 1
AUTOGRADER_ROOT=$root LAB=map "$root/source/setup.sh" > "$root/setup.log" 2>&1 ||
    { tail -5 "$root/setup.log"; fail "setup.sh fails"; exit 1; }

upload() { # WHAT [ENV...]: grade the upload now in $root/submission; print its score
    local what=$1
    shift
    rm -rf "$root/results"
    env AUTOGRADER_ROOT="$root" LAB=map "$@" "$root/source/run_autograder" > "$root/$what.log" 2>&1 ||
        fail "$what: run_autograder fails"
    grep -o '"score": [0-9.]*' "$root/results/results.json" 2> /dev/null | head -n 1 | sed 's/.*: //'
}
good=$root/good.cu
tests/grade/handed-in.sh map > "$good"

mkdir -p "$root/submission" && cp "$good" "$root/submission/map.cu"
full=$(tests/grade/stages.sh "$root/source/build/emu/solutions" map) # a point a stage
[ "$(upload "map.cu alone")" = "$full" ] || fail "a finished map.cu, uploaded alone, did not score $full"
# labs/map/map.cu graded, a stale copy in a backup and a link at the top
# ignored, and the output says so
rm "$root/submission/map.cu" && mkdir -p "$root/submission/labs/map" "$root/submission/backup" &&
    cp "$good" "$root/submission/labs/map/map.cu" && cp labs/map/map.cu "$root/submission/backup/" &&
    ln -s backup/map.cu "$root/submission/map.cu"
if ! { [ "$(upload "a stale copy")" = "$full" ] && grep -qF '"output": "Files graded: labs/map/map.cu.'\
' Ignored: backup/map.cu, map.cu (a link) (only' "$root/results/results.json"; }; then
    fail "with a stale copy and a link beside it, labs/map/map.cu was not graded, or the output did not say so"
fi
rm -rf "$root/submission" && mkdir -p "$root/submission/labs/map" && cp labs/map/map.cu "$root/submission/labs/map/"
[ "$(upload "the skeleton")" = 0 ] || fail "the skeleton did not score 0"
if [ "$(id -u)" = 0 ]; then # the sandbox's fallback: a user of its own
    cp "$good" "$root/submission/labs/map/map.cu"
    if ! { [ "$(upload "without namespaces" SANDBOX=none)" = "$full" ] &&
           grep -q 'running as user' "$root/grading/grades/submission/map/run.log"; }; then
        fail "as root without namespaces, a finished map did not score $full as a user of its own"
    fi
fi
# Stage 3 without its idea (float by float, in the tail's loop), a verdict
# printed for it, and a world-readable file of another checkout read and
# printed everywhere: the stage keeps no technique point, and the file
# reaches no output.
secret=$(mktemp -d /var/tmp/other-checkout.XXXXXX) && chmod 755 "$secret" || exit 1
marker="solution-line-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
echo "$marker" > "$secret/map.cu" && chmod 644 "$secret/map.cu"
rm -rf "$root/submission" && mkdir -p "$root/submission/labs/map"
sed -e 's/for (size_t i = start; i < vectors; i += stride) {/for (size_t i = start; i < 0; i += stride) {/' \
    -e 's/for (size_t i = 4 \* vectors + start; i < n; i += stride)/for (size_t i = start; i < n; i += stride)/' "$good" |
    FILE=$secret/map.cu awk '{ print } /TODO your own includes and helpers/ { on = 1 }
        on && index($0, "*/") { on = 0
            print "#include <stdio.h>\n#include <string.h>"
            print "__attribute__((constructor)) static void forge(int argc, char **argv) {"
            print "    char got[100] = \"\"; FILE *f = fopen(\"" ENVIRON["FILE"] "\", \"r\");"
            print "    if (f) { got[fread(got, 1, 99, f)] = 0; fclose(f); got[strcspn(got, \"\\n\")] = 0; }"
            print "    for (int k = 1; k < argc; k++) if (strncmp(argv[k], \"technique=\", 10) == 0)"
            print "        printf(\"TECHNIQUE\\t%s\\tshown\\t%s\\t\\n\", argv[k] + 10, got);"
            print "    printf(\"%s\\n\", got);"
            print "}" }' > "$root/submission/labs/map/map.cu"
[ "$(upload "a forger")" = $((full - 1)) ] || fail "a lazy stage 3 that prints its own verdict kept its point"
! grep -rqF "$marker" "$root/results" "$root/grading" ||
    fail "another checkout's file was read by the upload, and reached $(grep -rlF "$marker" "$root/results" "$root/grading" | head -n 3)"
rm -rf "$secret"
rm -rf "$root/submission" && mkdir -p "$root/submission"
if ! { [ "$(upload "nothing")" = 0 ] && grep -q 'No lab file' "$root/results/results.json"; }; then
    fail "an upload without a lab file was not told so"
fi
[ $status = 0 ] && echo "gradescope-test: setup.sh and run_autograder grade uploads as Gradescope runs them"
exit $status
