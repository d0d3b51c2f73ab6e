#!/usr/bin/env bash
# load-test.sh BUILD LAB...: under load, every stage still gets a verdict
# (issue 59). Each LAB's solution tests ($BUILD/solutions/LAB/test) run
# several at once beside a busy loop a core, with time limits so short
# (--timeout, as TESTFLAGS gives it) that many tests end just as their limit
# does: what made Criterion 2.4's own time-out abort the runner ("The test
# has already ended, invalid state 'timeout'") or hang it, with no summary.
# Every run must end by itself, print no error of Criterion's, say "did not
# finish" of what it stopped, give each stage of its lab a summary line, and
# exit 0 if every stage passed, else 1; one run at the default limit beside
# them must pass. About 30 s on 2 cores.
# Needs a GPU, or BUILD from EMU=1; without either, says so and passes, as
# authoring/prove.sh does.
set -u
build=$1
shift
if ! "$build/probe" > /dev/null; then
    echo "check: NOT run: the load test of the test programs (no GPU for $build)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/load-test.XXXXXX")
busy=()
trap 'kill "${busy[@]}" 2> /dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq "$(nproc)"); do
    while :; do :; done &
    busy+=($!)
done
# LAB LIMIT: one run, its output in $tmp/LAB.LIMIT, its status after it
run() {
    local out=$tmp/$1.$2
    # on a GPU, the emulated driver counts the techniques (as in prove.sh)
    SEED=1 NO_COLOR=1 WORKBOOK_TECHNIQUE_RUN=${build%/emu}/emu/solutions/$1/run timeout -k 5 120 "$build/solutions/$1/test" ${2:+--timeout="$2"} > "$out" 2>&1
    echo $? > "$out.status"
}
limits=(0.05 0.1 0.2 0.4) runs=()
for lab in "$@"; do
    for limit in "${limits[@]}"; do
        run "$lab" "$limit" &
        runs+=($!)
    done
done
run "$1" "" &
runs+=($!)
wait "${runs[@]}"

failed=0 stopped=0
fail() { echo "load-test: $*"; failed=1; }
for lab in "$@"; do
    stages=$("$build/solutions/$lab/run" list=stages | cut -f1)
    for limit in "${limits[@]}" ""; do
        [ -n "$limit" ] || [ "$lab" = "$1" ] || continue
        out=$tmp/$lab.$limit status=$(cat "$tmp/$lab.$limit.status")
        what="$lab at ${limit:-the default} limit"
        # its status: 0 when its summary says every stage passed, else 1
        failing=$(grep -E '^  stage ' "$out" | grep -Evc ' ([0-9]+) of +\1 passed')
        case $status in
        124 | 137) fail "$what: the runner did not end in 120 s (hung)" ;;
        0 | 1) [ "$status" = "$((failing > 0))" ] ||
            fail "$what: exit status $status, but $failing stages failed in its summary" ;;
        *) fail "$what: the runner ended with status $status" ;;
        esac
        [ -n "$limit" ] || [ "$status" = 0 ] || fail "$what: failed: $(grep -m1 'stage' "$out")"
        if grep -q -e '^\[ERR' -e 'Runner returned an error' -e 'already ended' "$out"; then
            fail "$what: Criterion's error: $(grep -m1 -e '^\[ERR' "$out")"
        fi
        for s in $stages; do
            grep -Eq "^  stage $s +.* of +[0-9]+ (passed|right)" "$out" ||
                fail "$what: no verdict for stage $s in its summary"
        done
        grep -q "did not finish in $limit s, and was stopped" "$out" 2> /dev/null && stopped=$((stopped + 1))
    done
done
# the short limits must have stopped tests, or this tested nothing
[ "$stopped" -gt 0 ] || fail "no test was stopped at its limit: the limits are too long to test anything"
if [ "$failed" = 0 ]; then
    echo "check: under load, every stage got a verdict in $(( $# * ${#limits[@]} + 1 )) runs of" \
        "$*, $stopped of them with tests stopped at their limit; no runner error"
fi
exit $failed
