# skeleton.awk: make a student's skeleton from a reference solution.
#
# A student region in a solution is a comment that opens with STUDENT, the
# reference code, and a closing END STUDENT comment:
#
#     /* STUDENT stage 1 -----------------------------------------------
#      * Goal: ...   Keep: ...   Hint: ...
#      */
#     size_t i = ...;
#     /* END STUDENT */
#
# The skeleton keeps the comment, with STUDENT turned into TODO, drops the
# code, and turns END STUDENT into END TODO: the student writes between the
# two, and a grader can tell their code from the frame around it
# (grading/grade.sh). Everything else is copied as is, so a diff of the two
# trees shows only the students' parts.

/\/\* STUDENT / {
    if (state != "") fail("a STUDENT region opens inside another")
    # headers stay as they are: the skeletons link the library objects
    # built against the solution's (the Makefile's LAB_CU_OBJS)
    if (FILENAME ~ /\.h$/) fail("a STUDENT region in a header")
    sub(/STUDENT/, "TODO")
    sub(/-+$/, "&---")   # keep the rule as wide as before
    state = "hint"
    opened = FNR
}
state == "hint" {
    print
    if (/\*\//) state = "code"
    next
}
state == "code" {
    if (/\/\* END STUDENT \*\//) {
        sub(/END STUDENT/, "END TODO")
        print
        state = ""
    }
    next
}
/END STUDENT/ { fail("END STUDENT without a STUDENT region before it") }
{ print }

END {
    if (failed) exit 1
    if (state != "") {
        FNR = opened
        fail("this STUDENT region has no END STUDENT")
    }
}

function fail(why) {
    printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
    failed = 1
    exit 1
}
