#!/usr/bin/env bash
# modes.sh: make grade against the attacks on its sandbox (grade-test.sh
# CLASS=sandbox; and technique-test.sh as root without namespaces) in the
# modes grade-test.sh itself does not run in: as root
# without user namespaces (SANDBOX=none, as in Gradescope's containers),
# and, run as root, as another user (nobody) with them; as another user
# without them, make grade must refuse to grade. Each runs in a copy of
# this checkout (its build for map included, so nothing is rebuilt) that
# only its grader can reach, as the fallback asks.
set -u
cd "$(dirname "$0")/../.." || exit 1
status=0
top=$(mktemp -d /var/tmp/grade-modes.XXXXXX) || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$top"' EXIT
chmod 755 "$top"

copy() { # DIR: this checkout and what grading map and reduce under the emulation has built
    mkdir "$1" && tar -c --exclude=./build . | tar -x -C "$1" &&
        tar -c build/emu/common build/emu/cuh build/emu/rewrite build/emu/solutions/map \
            build/emu/solutions/reduce build/emu/pristine |
        tar -x -C "$1" && chmod 700 "$1"
}
attacks() { # WHO ENV...: grade-test.sh CLASS=sandbox in the copy, as WHO
    local who=$1
    shift
    if "$@" env CLASS=sandbox EMU=1 "$dir/tests/grade/grade-test.sh" > "$top/$who.log" 2>&1; then
        echo "modes: $who: $(tail -n 1 "$top/$who.log")"
    else
        grep -v 'as it should$' "$top/$who.log" | grep '^grade-test' | sed "s/^/modes: $who: /"
        status=1
    fi
}

for lab in map reduce; do
    make --no-print-directory EMU=1 SOLUTION=1 LAB=$lab build/emu/solutions/$lab/run > /dev/null || exit 1
done
dir=$top/root
copy "$dir" || exit 1
attacks "root, without user namespaces" env SANDBOX=none
# the technique check's forgeries and a file carried out, there too (its
# dummy work and honest variants are judged the same in every mode)
if env SANDBOX=none FORGERIES_ONLY=1 "$dir/tests/grade/technique-test.sh" > "$top/technique.log" 2>&1; then
    echo "modes: root, without user namespaces: $(tail -n 1 "$top/technique.log")"
else
    grep -v 'as it should$' "$top/technique.log" | sed "s/^/modes: root, without user namespaces: /"
    status=1
fi

if [ "$(id -u)" = 0 ]; then
    dir=$top/nobody
    copy "$dir" && mkdir -m 700 "$top/home" && chown -R 65534:65534 "$dir" "$top/home" || exit 1
    as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$top/home" TMPDIR="$top/home")
    attacks "nobody, with user namespaces" "${as_nobody[@]}"
    mkdir -p "$dir/class/one/labs/map" && cp labs/map/map.cu "$dir/class/one/labs/map/" &&
        chown -R 65534:65534 "$dir/class"
    if (cd "$dir" && "${as_nobody[@]}" SANDBOX=none make --no-print-directory grade SUBMISSIONS="$dir/class" \
            OUT="$dir/grades" LAB=map EMU=1) > "$top/refused.log" 2>&1 ||
       ! grep -q 'and not root' "$top/refused.log"; then
        echo "modes: nobody, without user namespaces: make grade did not refuse to grade"
        sed 's/^/  /' "$top/refused.log" | tail -5
        status=1
    else
        echo "modes: nobody, without user namespaces: make grade refuses, saying why"
    fi
else
    echo "modes: as another user: not tried (run as root to try nobody)"
fi
exit $status
