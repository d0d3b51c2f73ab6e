# not-provided.awk -v source=FILE.cu LOG: the host compiler's messages about
# FILE.cu under the emulation (EMU=1), preceded by one line for each use of
# CUDA that the emulation lacks but a GPU compiles:
#
#   emulation: not provided: X (FILE:LINE)
#
# X names what is missing (cub::BlockRadixSort, cooperative_groups::this_grid,
# <mma.h>) and FILE:LINE the line of FILE.cu that uses it. The grader reads
# these lines, to grade the stages that do not use X: keep their form.
#
# Found: the emulation's own refusals ("the CPU emulation does not provide
# X; on a GPU this compiles", from its headers: cooperative_groups.h,
# collectives.h, not-provided/), CUDA headers the system does not have,
# CUDA's device functions the compiler finds undeclared (those the toolkit
# declares: not-provided/device-functions.txt, authoring/cuda-names.sh), and
# names the compiler cannot find in CUB's, cooperative groups', cuda:: or
# thrust's namespaces (or in an alias FILE.cu gives one of them).

function strip(s) { gsub(/\033\[[0-9;]*[mK]/, "", s); return s }
# A quoted name in the compiler's quotes, typographic or plain.
function unquote(s) { gsub(/\342\200[\230\231]|'/, "", s); return s }
# "FILE.cu:42" when the line starts with a location in FILE.cu.
function own_place(s) {
    if (index(s, source ":") != 1) return ""
    s = substr(s, length(source) + 2)
    return s ~ /^[0-9]+/ ? source ":" substr(s, 1, match(s, /[^0-9]/) - 1) : ""
}
# CUDA's namespaces, through the file's aliases: "cg::x" -> "cooperative_groups::x".
function cuda_name(s,    head) {
    s = unquote(s)
    sub(/^(class|struct) /, "", s)
    head = s; sub(/::.*/, "", head)
    if (head in alias) s = alias[head] substr(s, length(head) + 1)
    return s ~ /^(cub|cooperative_groups|cuda|nvcuda|thrust)(::|$)/ ? s : ""
}
# "cub::WarpReduce<int, 32>" -> "cub::WarpReduce"
function without_templates(s,    t) {
    do { t = s; sub(/<[^<>]*>/, "", s) } while (s != t)
    return s
}
function note(what, where) {
    if (what == "" || (what, where) in seen) return
    seen[what, where] = 1
    found[++count] = "emulation: not provided: " what " (" where ")"
}

BEGIN {
    REFUSED = "the CPU emulation does not provide "
    ON_A_GPU = "; on a GPU this compiles"
    REFUSAL = REFUSED ".*" ON_A_GPU
    # a file's own names for CUDA's namespaces: namespace cg = cooperative_groups;
    while ((getline line < source) > 0)
        if (match(line, /namespace[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*(::)?(cub|cooperative_groups|cuda|nvcuda|thrust)[A-Za-z0-9_:]*/)) {
            decl = substr(line, RSTART, RLENGTH)
            sub(/^namespace[ \t]+/, "", decl)
            name = decl; sub(/[ \t]*=.*/, "", name)
            target = decl; sub(/^[^=]*=[ \t]*(::)?/, "", target)
            alias[name] = target
        }
    close(source)
    functions = "common/emu/not-provided/device-functions.txt"
    while ((getline line < functions) > 0)
        if (line !~ /^#/) device_function[line] = 1
    close(functions)
}

{
    log_line[NR] = $0
    line = strip($0)
    place = own_place(line)
    # where the messages that follow are about: the last line of FILE.cu named
    if (place != "") here = place
    else if (match(line, /(from |^)[^ ]+:[0-9]+[:,]/)) {
        context = substr(line, RSTART, RLENGTH)
        sub(/^from /, "", context)
        if (own_place(context) != "") here = own_place(context)
    }
    if (line !~ /: (fatal )?(error|warning): /) next
    where = place != "" ? place : here
    if (match(line, REFUSAL))
        note(substr(line, RSTART + length(REFUSED), RLENGTH - length(REFUSED) - length(ON_A_GPU)), where)
    else if (match(line, /fatal error: [^ :]+: No such file or directory/)) {
        header = substr(line, RSTART + 13, RLENGTH - 13 - 27)
        if (header ~ /^(cuda|cub|thrust|cooperative_groups|nv|crt)\// ||
            header ~ /^(cuda[A-Za-z0-9_]*|mma|sm_[0-9]+_[a-z_]+|curand[a-z_]*|cublas[A-Za-z_]*|cufft[A-Za-z_]*|cusparse[a-z_]*|cusolver[A-Za-z_]*|nvrtc|nvtx[A-Za-z0-9_]*|device_[a-z_]+|vector_[a-z_]+|math_constants|builtin_types|driver_types|host_defines)\.(h|hpp|cuh)$/)
            note("<" header ">", where)
    } else if (match(line, /error: .* was not declared in this scope|error: use of undeclared identifier .*/)) {
        name = substr(line, RSTART + 7)
        sub(/ was not declared.*/, "", name); sub(/^use of undeclared identifier /, "", name)
        if (unquote(name) in device_function) note(unquote(name), where)
    } else if (match(line, /error: .* is not a member of .*/)) {
        split(substr(line, RSTART + 7), part, / is not a member of /)
        sub(/;.*/, "", part[2])
        note(cuda_name(unquote(part[2]) "::" unquote(part[1])), where)
    } else if (match(line, /error: .* in namespace .* does not name a (template )?type/)) {
        split(substr(line, RSTART + 7), part, / in namespace /)
        sub(/ does not name.*/, "", part[2])
        note(cuda_name(unquote(part[2]) "::" unquote(part[1])), where)
    } else if (match(line, /error: .* has not been declared/)) {
        name = substr(line, RSTART + 7); sub(/ has not been declared.*/, "", name)
        if (index(name, "::")) note(cuda_name(name), where)
    } else if (match(line, /error: .* has no member named .*/)) {
        split(substr(line, RSTART + 7), part, / has no member named /)
        sub(/;.*/, "", part[2])
        if (match(part[1], /\{aka .*\}/)) # a typedef: the type it names
            part[1] = substr(part[1], RSTART + 5, RLENGTH - 6)
        type = cuda_name(without_templates(unquote(part[1])))
        if (type != "") note(type "::" unquote(part[2]), where)
    }
}

END {
    for (k = 1; k <= count; k++) print found[k]
    if (count) print "(the CPU emulation does not provide what the lines above name; on a GPU this compiles)"
    for (k = 1; k <= NR; k++) print log_line[k]
}
