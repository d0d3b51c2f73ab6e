# splice.awk STUDENT.cu SKELETON.cu: the file a grader builds. Its frame
# (everything outside the TODO regions: includes, launchers, the stage
# table) is the skeleton's; the code inside each region, after the region's
# hint comment and before its END TODO, is the student's, region by region
# in order. With -v frame=1 it prints instead the student's file without
# that code, for a diff against the skeleton's frame. Exits 2, saying why,
# when the student's regions do not pair with the skeleton's.
function opens(line) { return line ~ /^[ \t]*\/\* TODO / }
function closes(line) { return line ~ /\/\* END TODO \*\// }
function name(line) { sub(/[ \t-]*$/, "", line); sub(/^[ \t]*/, "", line); return line }

FNR == NR {                        # the student's file
    if (opens($0)) { region++; title[region] = name($0); state = "hint" }
    else if (state == "hint" && $0 ~ /\*\//) { state = "code"; if (frame) print; next }
    else if (state == "code" && closes($0)) state = ""
    else if (state == "code") { body[region] = body[region] $0 "\n"; next }
    if (frame) print
    next
}
frame { next }
{                                  # the skeleton
    if (opens($0)) { k++; if (k > region || title[k] != name($0)) mismatch = mismatch ? mismatch : k; state = "hint" }
    else if (state == "hint" && $0 ~ /\*\//) { print; printf "%s", body[k]; state = "code"; next }
    else if (state == "code" && closes($0)) state = ""
    print
}
END {
    if (frame) exit
    if (mismatch || k != region) {
        printf "the TODO regions of the submission (%d) do not pair with the skeleton's (%d)%s\n",
               region, k, mismatch ? sprintf(": region %d's first line differs", mismatch) : "" > "/dev/stderr"
        exit 2
    }
}
