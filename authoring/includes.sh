#!/usr/bin/env bash
# includes.sh [--check]: what each file of the harness (common/, emulation
# aside) #includes of the kit's own headers, a line a file, as
# ARCHITECTURE.md draws it; and that no header includes itself through
# others (tsort finds a loop). --check: ARCHITECTURE.md's block between
# <!-- includes --> and <!-- /includes --> is this list; else print it.
set -u
cd "$(dirname "$0")/.." || exit 1
export LC_ALL=C # the files in one order on every machine
list() {
    for f in common/*.h common/*.cuh common/*.c common/*.cu; do
        printf '%-22s %s\n' "$f" "$(sed -n 's/^#include "\(.*\)".*/\1/p' "$f" | paste -sd ' ' -)"
    done | sed 's/ *$//'
}
edges() { # "header includer" pairs, for tsort
    list | while read -r f incs; do for i in $incs; do echo "$i ${f#common/}"; done; done
}
if ! edges | tsort > /dev/null 2> /dev/null; then
    echo "includes: a loop among the harness's headers: $(edges | tsort 2>&1 >/dev/null | tr '\n' ' ')"
    exit 1
fi
[ "${1:-}" = --check ] || { list; exit 0; }
drawn=$(sed -n '/^<!-- includes -->$/,/^<!-- \/includes -->$/p' ARCHITECTURE.md | sed '1,2d;$d' | sed '$d')
if [ "$drawn" != "$(list)" ]; then
    echo "includes: ARCHITECTURE.md's list of includes is not the code's (authoring/includes.sh prints it):"
    diff <(echo "$drawn") <(list) | sed 's/^/  /'
    exit 1
fi
echo "check: ARCHITECTURE.md's includes are the code's, with no loop"
