#!/usr/bin/env bash
# handed-in.sh LAB: the reference solution of LAB as a student would hand it
# in, on stdout: its STUDENT regions' code in the TODO regions of labs/LAB.
set -eu
cd "$(dirname "$0")/../.."
awk -f grading/splice.awk "labs/$1/$1.cu" \
    <(sed -e 's|/\* STUDENT |/* TODO |; s|END STUDENT|END TODO|' "solutions/$1/$1.cu")
