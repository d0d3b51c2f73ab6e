#!/usr/bin/env bash
# skeletons.sh write|check GENERATED LAB...: labs/ and the skeletons that
# GENERATED (the Makefile's build/skeleton-sources) holds, as the solutions make
# them today.
#
# authoring/skeletons.sha256 records what the last generation wrote. A file in
# labs/ that differs from that record, or that it does not list, is a
# student's work: `write` never overwrites or deletes it, unless FORCE=1,
# and then only after copying labs/ to backups/. `check` tells a maintainer
# whose labs/ lags behind solutions/ from a student whose labs/ holds work.
set -u
mode=$1 generated=$2
shift 2
manifest=authoring/skeletons.sha256

# "sum  labs/<lab>/<file>" for every file of the given labs under a folder.
sums_of() {
    local root=$1
    shift
    for lab in "$@"; do
        [ -d "$root/$lab" ] || continue
        (cd "$root/.." && find "$(basename "$root")/$lab" -type f ! -name '*.tmp' | sort |
            xargs -r sha256sum) | sed "s|^\([0-9a-f]*  \)$(basename "$root")/|\1labs/|"
    done
}

indent() { sed 's/^/  /'; }

# The files of labs/ that are not as the last generation wrote them.
student_work() {
    local recorded
    recorded=$(grep -E " labs/($(IFS='|'; echo "$*"))/" "$manifest" 2>/dev/null)
    diff <(echo "$recorded" | sed '/^$/d' | sort -k 2) <(sums_of labs "$@" | sort -k 2) |
        sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u
}

case $mode in
write)
    if [ ! -f "$manifest" ] && [ -d labs ] && [ -n "$(ls -A labs 2>/dev/null)" ] && [ -z "${FORCE:-}" ]; then
        echo "make skeletons: labs/ has no record of what was generated ($manifest), so any"
        echo "file in it may be a student's work. FORCE=1 regenerates it after a backup."
        exit 1
    fi
    work=$(student_work "$@")
    if [ -n "$work" ] && [ -z "${FORCE:-}" ]; then
        echo "make skeletons: these files in labs/ differ from the skeletons last generated,"
        echo "so they hold someone's work, and were left as they are:"
        indent <<< "$work"
        echo "Nothing was changed. FORCE=1 regenerates labs/ after copying it to backups/."
        exit 1
    fi
    if [ -n "$work" ] || [ ! -f "$manifest" ]; then
        backup=backups/labs-$(date +%Y%m%d-%H%M%S)
        mkdir -p backups && cp -a labs "$backup" && echo "make skeletons: labs/ copied to $backup first"
    fi
    # Each file is written beside its place and renamed into it: an
    # interrupted run leaves every file whole, old or new.
    for lab in "$@"; do
        mkdir -p "labs/$lab"
        for f in "$generated/$lab"/*; do
            cp "$f" "labs/$lab/.$(basename "$f").new" && mv "labs/$lab/.$(basename "$f").new" "labs/$lab/$(basename "$f")"
        done
        for f in "labs/$lab"/*; do
            [ -e "$generated/$lab/$(basename "$f")" ] || rm -f "$f"
        done
    done
    { grep -vE " labs/($(IFS='|'; echo "$*"))/" "$manifest" 2>/dev/null; sums_of labs "$@"; } |
        sort -k 2 > "$manifest.new" && mv "$manifest.new" "$manifest"
    echo "labs/ regenerated from solutions/ for: $*"
    ;;
check)
    stale=$(diff <(grep -E " labs/($(IFS='|'; echo "$*"))/" "$manifest" 2>/dev/null | sort -k 2) \
                 <(sums_of "$generated" "$@" | sort -k 2) |
        sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u)
    if [ -n "$stale" ]; then
        echo "check: solutions/ changed since the skeletons were generated; these differ:"
        indent <<< "$stale"
        echo "check: a maintainer runs make skeletons and commits labs/ (a student need not)"
        echo "check: (compared at HINTS=${HINTS:-full}; for a labs/ made at another hint level, give make its HINTS)"
        exit 1
    fi
    work=$(student_work "$@")
    if [ -z "$work" ]; then
        echo "check: labs/ is in sync with solutions/"
    elif [ -n "${WORKBOOK_MAINTAINER:-}" ]; then
        echo "check: labs/ differs from the generated skeletons, in:"
        indent <<< "$work"
        echo "check: edit solutions/, then make skeletons; never labs/ by hand"
        exit 1
    else
        count=$(echo "$work" | wc -l)
        echo "check: labs/ holds your work ($count file$([ "$count" = 1 ] || echo s) differ from the"
        echo "       skeletons, as they should); the checks below use the skeletons themselves"
    fi
    ;;
esac
