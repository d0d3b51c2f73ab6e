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
#
# Hint levels, -v hints=full (the default) or goal: how much the comment
# gives. goal keeps Goal and Keep and drops the Hint paragraph (the comment's
# last). Where the comment states a formula the stage exists to teach, it
# is marked {what full says|what goal says instead}, within one line; a line
# that a mark leaves empty is dropped, so {|a line} is goal's alone and
# {a line|} full's alone. No other {, } or | may stand in a STUDENT comment.

BEGIN {
    if (hints == "") hints = "full"
    if (hints != "full" && hints != "goal") {
        printf "skeleton.awk: HINTS=%s: the hint levels are full and goal\n", hints > "/dev/stderr"
        failed = 1
        exit 1
    }
}

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
    if (/\*\//) {
        state = "code"
        dropping = 0
    } else if (hints == "goal" && /^[ \t]*\*[ \t]*Hint:/)
        dropping = 1
    line = marked($0)
    if (!dropping && !(line ~ /^[ \t]*\*[ \t]*$/ && line != $0))
        print line
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

# The line with each {full|goal} mark as the level reads it.
function marked(line,    out, mark, bar) {
    out = ""
    while (match(line, /\{[^{}|]*\|[^{}|]*\}/)) {
        mark = substr(line, RSTART + 1, RLENGTH - 2)
        bar = index(mark, "|")
        out = out substr(line, 1, RSTART - 1) (hints == "full" ? substr(mark, 1, bar - 1) : substr(mark, bar + 1))
        line = substr(line, RSTART + RLENGTH)
    }
    if (line ~ /[{}|]/) fail("a {, } or | outside a hint mark {what full says|what goal says}, in one line")
    return out line
}

function fail(why) {
    printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
    failed = 1
    exit 1
}
