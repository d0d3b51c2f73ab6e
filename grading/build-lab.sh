#!/usr/bin/env bash
# build-lab.sh LAB EMU BINARY EMULATED: a submission's build, as grade.sh
# runs it in its sandbox, in a copy of the pristine tree that holds the
# spliced lab: LAB's BINARY for EMU; then, where that is another file, the
# EMULATED build, whose runs count the techniques on a GPU too.
set -u
lab=$1 emu=$2 binary=$3 emulated=$4
make --no-print-directory -j2 EMU="$emu" GRADED=1 LAB="$lab" "$binary" &&
    { [ "$binary" = "$emulated" ] || make --no-print-directory -j2 EMU=1 GRADED=1 LAB="$lab" "$emulated"; }
