# splice.awk SKELETON STUDENT: the file a grader builds, on stdout. Its
# frame (everything outside the TODO regions: includes, launchers, the stage
# table) is the skeleton's; the code in each region, after the region's hint
# comment and before its END line, is the student's, region by region in
# order. With -v frame=1 it prints instead the student's file without that
# code, nor the regions' hints (a copy made with HINTS=goal has shorter
# ones), for a diff against the skeleton.
#
# Forgiving where a student is honest: CRLF line ends; a region's TODO
# renamed (DONE ...); the student's own comments anywhere, even ones that
# start with TODO; code added between two declarations outside the regions
# (a helper, an #include), which is kept where it stands.
#
# Strict where the frame could be bent: a region's code (and code added
# outside one) is used only if it closes what it opens: comments, strings,
# braces, parentheses and #if blocks; and defines or undefines no name the
# frame uses (#define map_stage2 map_stage1). What is not used is said, a
# line each, in the file -v notes= names; a region not used is left empty.
# Exits 2, saying why on stderr, when no region at all can be found.

function trim(s) { sub(/\r$/, "", s); sub(/[ \t]+$/, "", s); return s }
function squeeze(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/[ -]+$/, "", s); return s }
# A region's key: its opener without the comment mark, the first word (TODO,
# or a student's DONE) and the rule: "stage 1". None for a line that is no
# opener: one that closes its comment, or holds no word after the mark.
function key(s) {
    s = squeeze(s)
    if (s !~ /^\/\* *[A-Za-z]+ / || index(s, "*/")) return ""
    sub(/^\/\* *[A-Za-z]+ +/, "", s)
    return s
}
function closes(s) { return s ~ /^[ \t]*\/\*[ \t]*END[ \t]+[A-Za-z]+[ \t]*\*\/[ \t]*$/ }

# The code of a line: comments and the insides of strings and characters
# gone. Keeps `inside` (an open /* comment) across lines; sets `openstr`
# when a string or character is not closed on its line.
function code(s,    out, i, n, c, q, e) {
    openstr = 0
    if (!inside && s !~ /[\/"']/) return s
    out = ""; n = length(s); i = 1
    while (i <= n) {
        if (inside) {
            e = index(substr(s, i), "*/")
            if (!e) return out
            i += e + 1; inside = 0; out = out " "; continue
        }
        c = substr(s, i, 1)
        if (c == "/" && substr(s, i + 1, 1) == "*") { inside = 1; i += 2; continue }
        if (c == "/" && substr(s, i + 1, 1) == "/") return out
        if (c == "\"" || c == "'") {
            q = c; i++
            while (i <= n && substr(s, i, 1) != q) i += substr(s, i, 1) == "\\" ? 2 : 1
            if (i > n) openstr = 1
            out = out q q; i++; continue
        }
        out = out c; i++
    }
    return out
}
function count(s, ch,    t) { t = s; return gsub(ch, "", t) }

# Why lines a..b of the student's file cannot be used, or "" when they can.
function unusable(a, b,    j, c, d, word, ifs, braces, parens, cont) {
    inside = 0; ifs = 0; braces = 0; parens = 0; cont = 0
    for (j = a; j <= b; j++) {
        c = code(st[j])
        if (openstr) return "a string or character is not closed on its line " (j)
        if (index(c, "_Pragma") || (c ~ /^[ \t]*#[ \t]*pragma/ && c ~ /(push|pop)_macro/))
            return "line " j " saves or restores a macro"
        if (cont) { cont = c ~ /\\$/; continue }
        if (c ~ /^[ \t]*#/) {
            cont = c ~ /\\$/
            d = c; sub(/^[ \t]*#[ \t]*/, "", d)
            word = d; sub(/[^A-Za-z].*/, "", word)
            if (word ~ /^if(n?def)?$/) ifs++
            else if (word ~ /^(else|elif|endif)$/ && ifs == 0)
                return "line " j " has an #" word " of an #if outside it"
            else if (word == "endif") ifs--
            else if (word ~ /^(define|undef)$/) {
                sub(/^[a-z]+[ \t]+/, "", d); sub(/[^A-Za-z0-9_].*/, "", d)
                if (d in ids) return "line " j " #" word "s " d ", a name the grader's frame uses"
            }
            continue
        }
        braces += count(c, "{") - count(c, "}"); parens += count(c, "\\(") - count(c, "\\)")
    }
    if (inside) return "a comment opened there is not closed"
    if (ifs) return "an #if opened there has no #endif"
    if (braces) return "its braces do not pair ({ and } differ by " (braces < 0 ? -braces : braces) ")"
    if (parens) return "its parentheses do not pair"
    return ""
}
function note(s) { if (notes != "") print s > notes }
function region_name(r) { return "TODO region " r " (" title[r] ")" }

BEGIN { scope[0] = 1 }
FNR == NR {                                   # the skeleton
    sk[++S] = $0
    c = code($0)
    if (skstate == "hint" && index($0, "*/")) { skstate = "code"; hint_end[R] = S; scope[S] = 0; next }
    if (skstate == "" && key($0) != "" && $0 ~ /TODO/) {
        title[++R] = key($0); skopen[R] = S; skstate = "hint"; scope[S] = 0; next
    }
    if (skstate == "code" && closes($0)) { skstate = ""; skclose[R] = S }
    if (skstate == "hint") { scope[S] = 0; next }
    # every name in the frame's code; where code may be added: between
    # declarations, at file scope
    n = split(c, w, /[^A-Za-z0-9_]+/)
    for (k = 1; k <= n; k++) if (w[k] ~ /^[A-Za-z_]/) ids[w[k]] = 1
    if (c ~ /^[ \t]*#/) last = ";"
    else {
        depth += count(c, "{") - count(c, "}") + count(c, "\\(") - count(c, "\\)")
        t = c; gsub(/[ \t]+$/, "", t); if (t != "") last = substr(t, length(t))
    }
    scope[S] = !inside && depth == 0 && (last == "" || last == ";" || last == "}")
    next
}
{ st[++T] = trim($0) }                         # the student's file

END {
    if (!R) { print "the skeleton has no TODO regions" > "/dev/stderr"; exit 2 }
    # Find each region in the student's file, in order: its opener, hint end
    # and END line. A region whose END is missing before the next opener, or
    # whose opener is missing, is not used.
    r = 1; state = ""; ends = 0
    for (j = 1; j <= T && r <= R + 1; j++) {
        if (state == "hint") { if (index(st[j], "*/")) { state = "code"; body0[r] = j + 1 } continue }
        if (state == "code") {
            if (closes(st[j])) { body1[r] = j - 1; close_at[r] = j; ends++; state = ""; r++; continue }
            for (q = r + 1; q <= R; q++) if (key(st[j]) == title[q]) break
            if (q <= R && st[j] ~ /^[ \t]*\/\*/) {  # the next region opens: this one never closed
                lost[r] = "has no END line before " region_name(q)
                for (m = r + 1; m < q; m++) lost[m] = "is missing"
                r = q; open_at[r] = j; state = "hint"
            }
            continue
        }
        k = key(st[j])
        if (k == "" || st[j] !~ /^[ \t]*\/\*/) continue
        for (q = r; q <= R; q++) if (k == title[q]) break
        if (q > R) continue
        for (m = r; m < q; m++) lost[m] = "is missing"
        r = q; open_at[r] = j; state = "hint"
    }
    if (state != "" && r <= R) lost[r] = "has no END line after it"
    for (m = r + (state != ""); m <= R; m++) if (!(m in lost)) lost[m] = "is missing"
    found = 0
    for (m = 1; m <= R; m++) found += !(m in lost)
    if (!ends && found < R && T) {
        print "its TODO regions have no END lines: it was made from an older skeleton (or none)." \
              " Copy each region's code into the current skeleton's (labs/)" > "/dev/stderr"
        exit 2
    }
    for (m = 1; m <= R; m++) {
        if (m in lost) { note(region_name(m) " " lost[m] ": not used"); continue }
        why = body0[m] <= body1[m] ? unusable(body0[m], body1[m]) : ""
        if (why != "") { lost[m] = why; note(region_name(m) ": " why ": not used") }
    }
    # Lines added to the frame between two regions that both stand: where
    # the skeleton's lines of that stretch all appear, in order, among the
    # student's, the others are additions, kept if at file scope and whole.
    for (m = 0; m <= R; m++) {
        if ((m > 0 && !(m in close_at)) || (m < R && !(m + 1 in open_at))) continue
        a = m ? close_at[m] + 1 : 1; b = m < R ? open_at[m + 1] - 1 : T
        ska = m ? skclose[m] + 1 : 1; skb = m < R ? skopen[m + 1] - 1 : S
        for (pass = 1; pass <= 2; pass++) {  # 1: do the skeleton's lines all appear? 2: use the rest
            i = ska; run0 = 0
            for (j = a; j <= b + 1; j++) {
                while (i <= skb && sk[i] !~ /[^ \t]/) i++
                same = j <= b && i <= skb && squeeze(st[j]) == squeeze(sk[i])
                if (j <= b && !same && st[j] ~ /[^ \t]/) { if (!run0) { run0 = j; after = i - 1 } continue }
                if (run0 && pass == 2) added(run0, j - 1, after)
                run0 = 0
                if (same) i++
            }
            if (i <= skb) {
                note("the frame was changed between lines " a " and " b ": what was added there is not used")
                break
            }
        }
    }
    if (frame) {
        for (j = 1; j <= T; j++) {
            for (m = 1; m <= R; m++)
                if (body0[m] && j > open_at[m] && j <= body1[m]) break # a hint, then code
            if (m > R) print st[j]
        }
        exit
    }
    for (i = 1; i <= S; i++) {
        print sk[i]
        for (m = 1; m <= R; m++)
            if (hint_end[m] == i && !(m in lost))
                for (j = body0[m]; j <= body1[m]; j++) print st[j]
        if (i in insert) printf "%s", insert[i]
    }
}

# Student lines a..b, added after skeleton line `after`: kept when the
# skeleton is between declarations there and the lines close what they open.
function added(a, b, after,    why, j) {
    why = !scope[after] ? "not between two declarations" : unusable(a, b)
    if (why == "") { for (j = a; j <= b; j++) insert[after] = insert[after] st[j] "\n"; return }
    note((a == b ? "line " a : "lines " a "-" b) ", added outside the TODO regions: " why ": not used")
}
