#!/usr/bin/env bash
# prove.sh BUILD LAB...: prove each lab's tests honest in both directions:
# they pass on the reference solution, and on the skeleton generated from it
# (BUILD/skeletons, which is labs/ before a student starts) every stage has
# a failing test. Needs a GPU, or BUILD from EMU=1; without either, says what
# it skipped.
build=$1
shift
if ! probe=$("$build/probe"); then
    echo "check: $probe"
    echo "check: NOT run: the GPU tests of $* (pass on the solution, fail on the skeleton)."
    exit 0
fi
echo "check: $probe"
status=0
export SEED=${SEED:-$((RANDOM * 32768 + RANDOM))} NO_COLOR=1
unset STAGE VARIANT
# on a GPU, the emulated drivers that count the techniques (make builds them)
emu_build=${build%/emu}/emu
for lab in "$@"; do
    logs=$build/check/$lab
    mkdir -p "$logs"
    if WORKBOOK_TECHNIQUE_RUN=$emu_build/solutions/$lab/run "$build/solutions/$lab/test" --tap="$logs/solution.tap" > "$logs/solution.log" 2>&1; then
        echo "check: $lab: $(grep -c '^ok' "$logs/solution.tap") of" \
             "$(grep -c '^\(not \)\?ok' "$logs/solution.tap") tests pass on the solution"
    else
        echo "check: $lab: the tests FAIL on the solution (seed $SEED); the end of $logs/solution.log:"
        tail -n 25 "$logs/solution.log"
        status=1
    fi
    # (up to 50000 elements: each stage of a skeleton fails at every size)
    WORKBOOK_LARGEST_N=50000 WORKBOOK_TECHNIQUE_RUN=$emu_build/skeletons/$lab/run "$build/skeletons/$lab/test" --tap="$logs/skeleton.tap" > "$logs/skeleton.log" 2>&1
    suites=$("$build/skeletons/$lab/test" --list 2>/dev/null | sed -n 's/^\([A-Za-z0-9_]*_stage[0-9a-z]*\): .*/\1/p')
    passing=""
    for suite in $suites; do
        grep -q "^not ok .* $suite::" "$logs/skeleton.tap" || passing="$passing $suite"
    done
    if [ -z "$suites" ]; then
        echo "check: $lab: the skeleton's tests did not start; the end of $logs/skeleton.log:"
        tail -n 10 "$logs/skeleton.log"
        status=1
    elif [ -n "$passing" ]; then
        echo "check: $lab: on the untouched skeleton nothing fails in:$passing: those tests cannot fail"
        status=1
    else
        echo "check: $lab: on the skeleton every stage fails (${suites//$'\n'/,})"
    fi
done
exit $status
