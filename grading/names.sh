# shellcheck shell=bash
# names.sh, sourced by grade.sh and grade-slurm.sh: what a submission's
# folder is called in OUT, and how reports show its name.

# out_name BASE: its folder in OUT: no dot, for every file the grader
# writes there has one (summary.md, junit.xml, .lock), and a folder standing
# in its way would keep it from being written; a name that needed changing
# gets its checksum, so two never meet.
out_name() {
    local name
    name=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9_-' '_')
    [ "$name" = "$1" ] || name+=-$(printf '%s' "$1" | cksum | cut -d' ' -f1)
    printf '%s' "$name"
}

# shown_name BASE: the name as every report shows it: a control character
# as ?, so that none can start a line of its own.
shown_name() { printf '%s' "$1" | LC_ALL=C tr '\000-\037\177' '?' | iconv -f UTF-8 -t UTF-8 -c; }
