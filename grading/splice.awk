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
    if (opens($0)) { if (state == "code" && !unclosed) unclosed = region; region++; title[region] = name($0); state = "hint" }
    else if (state == "hint" && $0 ~ /\*\//) { state = "code"; if (frame) print; next }
    else if (state == "code" && closes($0)) { state = ""; closed++ }
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
    if (state == "code" && !unclosed) unclosed = region
    if (region && !closed) {
        print "its TODO regions have no /* END TODO */ lines: it was made from a skeleton older than" \
              " them. Copy each region's code into the current skeleton's (labs/)" > "/dev/stderr"
        exit 2
    }
    if (unclosed) {
        t = title[unclosed]; sub(/^\/\* /, "", t)
        printf "TODO region %d (%s) has no /* END TODO */ line after it: put it back where" \
               " the skeleton has it\n", unclosed, t > "/dev/stderr"
        exit 2
    }
    if (mismatch || k != region) {
        printf "the TODO regions of the submission (%d) do not pair with the skeleton's (%d)%s\n",
               region, k, mismatch ? sprintf(": region %d's first line differs", mismatch) : "" > "/dev/stderr"
        exit 2
    }
}
