#!/usr/bin/env bash
# dist.sh DIR BINS LAB...: the student copy of LAB..., from the committed
# tree, as DIR/gpu-workbook/ and DIR/gpu-workbook.tar.gz. It holds what a
# student works with (labs/, handouts/, the harness, the tests, results/)
# and none of what the instructor keeps, each in a folder of its own:
# solutions/ and their model answers, grading/ (the grader), authoring/
# (what makes and proves the kit, the Makefile's instructors' part
# included; ARCHITECTURE.md is its map), notebook/ (experiments and runs:
# kernels of the graded stages, patches of them), the tests of those (tests/grade, tests/mutants: lines
# of the solutions, tests/bench, tests/dist, tests/handouts, tests/deps,
# tests/devcontainer) and this repository's CI (.ci, and the macOS
# workflow, which tests the solutions). README.md loses what lies between
# <!-- instructors --> and <!-- /instructors --> lines.
#
# A course released in parts (make dist LABS=map,reduce,histogram) gets
# only the labs named: the others' labs/<lab>/, spec/<lab>/, tests/<lab>/,
# handout and family folder (spec/scan, while no scan lab ships) are left out, and so
# is each common/*.cuh that no file left #includes: a later lab's header
# answers an earlier lab's stages (authoring/leaks.sh -s says which).
# README.md's table marks the labs left out "to come"; results/ stays
# whole (measurements, no code: tests/dist checks it with leaks.sh).
#
# HINTED=DIR (make dist HINTS=goal): the copy's labs/<lab>/ are the
# skeletons in DIR/<lab>/, generated at that hint level, instead of the
# committed labs/ (full hints).
#
# It gets .github/workflows/classroom.yml (grading/classroom.sh, from the
# skeletons' drivers in BINS), so that it can serve as a GitHub Classroom
# template as it is.
set -eu
dir=$1 bins=$2 name=gpu-workbook
shift 2
hinted=${HINTED:+$(cd "$HINTED" && pwd)}
mkdir -p "$dir" && rm -rf "${dir:?}/$name" "$dir/$name.tar.gz" && mkdir "$dir/$name"
git archive --format=tar HEAD | tar -x -C "$dir/$name"
[ -z "$(git status --porcelain -- . ':!results' 2> /dev/null)" ] ||
    echo "dist: this checkout has uncommitted changes; the copy holds the committed tree ($(git rev-parse --short HEAD))"
mkdir -p "$dir/$name/.github/workflows"
grading/classroom.sh grading/weights.txt "$bins" "$@" > "$dir/$name/.github/workflows/classroom.yml"
cd "$dir/$name"
rm -rf ARCHITECTURE.md solutions grading authoring notebook .ci tests/grade tests/mutants tests/bench tests/dist tests/handouts \
    tests/deps tests/devcontainer .github/workflows/macos.yml

# The labs left out, with all that is theirs alone.
read -ra course <<< "$(sed -n 's/^COURSE *:= *//p' Makefile)"
out=()
for lab in "${course[@]}"; do
    case " $* " in *" $lab "*) ;; *) out+=("$lab") ;; esac
done
for lab in "${out[@]}"; do
    rm -rf "labs/$lab" "spec/$lab" "tests/$lab" handouts/[0-9]*-"$lab".md handouts/appendix/[0-9]*-"$lab".md \
        handouts/figures/"$lab"-*.svg handouts/figures/draw/"$lab"-*.sh
done
if [ -n "$hinted" ]; then
    for lab in "$@"; do rm -rf "labs/$lab" && cp -R "$hinted/$lab" "labs/$lab"; done
fi
for family in spec/*/; do # a folder a family of labs shares (scan-HS, scan-Blelloch: spec/scan)
    family=${family%/} family=${family#spec/}
    printf "%s\n" "${course[@]}" | grep -q "^$family-" || continue
    printf "%s\n" "$@" | grep -q "^$family-" || rm -rf "spec/$family"
done
while :; do # a shared header that no file left includes, till none is left
    gone=0
    for h in common/*.cuh; do
        h=${h#common/}
        [ -e "common/$h" ] || continue
        grep -rqE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"${h//./\\.}\"" --exclude="$h" . ||
            { rm "common/$h"; gone=1; }
    done
    [ $gone = 1 ] || break
done
awk -v out=" ${out[*]} " '
    /^<!-- instructors -->$/ { skip = 1; next }
    /^<!-- \/instructors -->$/ { skip = 0; next }
    skip { next }
    /^\| `[^`]*` \|/ && /\| ready \|$/ { # the lab table: a lab not in this copy is to come
        lab = $0; sub(/^\| `/, "", lab); sub(/`.*/, "", lab)
        if (index(out, " " lab " ")) sub(/\| ready \|$/, "| to come |")
    }
    { print }' README.md > README.tmp && mv README.tmp README.md
cd .. && tar -czf "$name.tar.gz" "$name"
echo "dist: $dir/$name.tar.gz (and unpacked, $dir/$name/): $(find "$name" -type f | wc -l) files," \
    "the labs $*${out[*]:+ (to come: ${out[*]})}${hinted:+, hints: ${HINTS:-$HINTED}}, no solutions"
