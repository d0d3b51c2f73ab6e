#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu, no GPU): what make grade needs, then the judges and the pristine
# tree built into the image, so that each submission only builds its own
# file. LAB= (as in make) limits it to the labs the assignment grades.
set -eu
LAB=${LAB:-} # an assignment of one lab: LAB=map (or a prefix: LAB=scan)
cd "${AUTOGRADER_ROOT:-/autograder}/source"
if ! { command -v make && command -v g++ && pkg-config --exists criterion; } > /dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        make g++ pkg-config libcriterion-dev util-linux
fi
none=$(mktemp -d) # an empty class: only the judges and the pristine tree are made
make --no-print-directory grade SUBMISSIONS="$none" OUT="$none.grades" EMU=1 ${LAB:+LAB="$LAB"}
rm -rf "$none" "$none.grades"
