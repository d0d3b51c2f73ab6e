#!/usr/bin/env bash
# test-labs.sh BUILD TREE LAB...: `make test`. Each lab's tests, with their
# failure reports; then, on a GPU, the run table of the stages that passed;
# then, last, one line per stage, which is all a student needs to read.
#
# From make: SEED (one is drawn if empty), STAGE, VARIANT, N and BLOCK (the
# tests use the first three and refuse a mistake in any, as the table,
# which uses all five, would), EMU, TESTFLAGS
# (Criterion's own options), WORKBOOK_MAKE_ARGS; TECHNIQUE_BUILD, where the
# emulated drivers are that count each stage's technique on a GPU; FORMAT (junit, json or tap)
# and REPORTS, the folder where each lab's report in that format goes.
build=$1 tree=$2
shift 2
# a seed from the clock: seconds (BSD date, as on a Mac, has no %N) and bash's RANDOM
export SEED=${SEED:-$(( ($(date +%s) * 1000 + RANDOM % 1000) % 1000000 ))} STAGE VARIANT WORKBOOK_MAKE_ARGS
summaries=$(mktemp -d "${TMPDIR:-/tmp}/workbook.XXXXXX")
trap 'rm -rf "$summaries"' EXIT
status=0
case ${FORMAT:-} in # Criterion's option for it, and the file's extension
junit) report=xml ;;
json | tap) report=$FORMAT ;;
*) report= ;;
esac
[ -z "$report" ] || mkdir -p "$REPORTS"
for lab in "$@"; do
    # shellcheck disable=SC2086 # TESTFLAGS are words for Criterion
    WORKBOOK_SUMMARY=$summaries/$lab.summary WORKBOOK_PASSED=$summaries/$lab.passed \
        WORKBOOK_TECHNIQUE_RUN=${TECHNIQUE_BUILD:-build/emu}/$tree/$lab/run \
        "$build/$tree/$lab/test" $TESTFLAGS ${report:+"--$report=$REPORTS/$lab.$report"} || status=1
done
[ -z "$report" ] || echo "test: each lab's results as $FORMAT: $(printf "$REPORTS/%s.$report " "$@")"
# A table shows what a GPU does with the stages that are right; under EMU=1
# its times would be the CPU's, so it stays one `make run` away.
if [ "$EMU" = 1 ]; then
    [ "$status" = 0 ] && echo "Emulated times mean nothing, so no run table: on a GPU, make run" \
        "prints one (make run ... EMU=1 prints the emulated one)."
else
    for lab in "$@"; do
        passed=$(cat "$summaries/$lab.passed" 2>/dev/null)
        [ -n "$passed" ] && { "$build/$tree/$lab/run" sweep=0 stage="$passed" || status=1; }
    done
fi
echo
cat "$summaries"/*.summary 2>/dev/null
exit $status
