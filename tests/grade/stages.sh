#!/usr/bin/env bash
# stages.sh BINS LAB...: how many stages the labs hold together, as each
# lab's driver names them (BINS/LAB/run list=stages): what a finished lab
# scores, and how many Classroom tests it has.
set -eu
bins=$1
shift
for lab in "$@"; do "$bins/$lab/run" list=stages; done | wc -l
