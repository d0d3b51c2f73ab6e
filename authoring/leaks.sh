#!/usr/bin/env bash
# leaks.sh [-v | -s | -l] COPY [LAB...]: where the student copy COPY (make
# dist) holds lines of the solutions of LAB... (default: every lab with a
# solution), and which of those it must not hold.
#
# A solution line is a line of code between a STUDENT hint and its END
# STUDENT (authoring/skeleton.awk), at least MIN characters long (default
# 28) once each run of whitespace is one space, and written in one lab's
# solutions only: a line that several labs' answers share is the course's
# idiom (a global index, a lane number), not a stage's answer. A line that
# the generated skeleton of its lab, or of a lab before it, holds anywhere
# is no secret either. Why 28: a shorter line is one small statement that
# tells little of a stage (`out[blockIdx.x] = sums[0];` ends each of
# reduce's trees, `int device, sms, per_sm;` declares three ints), and at
# 28 each stage of each lab still has a line to look for (histogram's 1
# and 2 have one, 28 long: `atomicAdd(&hist[in[i]], 1u);`).
#
# Every file of COPY is read, whatever its name or type: gzip decompressed,
# tar unpacked (FILE/MEMBER), whitespace collapsed the same way
# (re-indenting hides nothing), HTML's &lt; &gt; &amp; &quot; &#39; read as
# the characters they stand for.
#
# A line of lab A may appear only in a file of a lab later than A, in the
# course's order (COURSE in the Makefile), that COPY holds (labs/B/): a
# file under a folder named for it (labs/B/, spec/B/, results/<gpu>/B/) or
# named for it (handouts/08-radix.md), one of its family (spec/scan: the
# family's first lab), or a header by the earliest lab whose own files
# #include it, however indirectly (common/collectives.cuh). Anywhere else
# it leaks, unless authoring/leaks-accepted.txt (ACCEPTED=) accepts that
# line in that file. Each leak is a line, FILE:LINE: LAB, STAGE: the
# solution line; it exits 1 if there is one, or if an accepted line is no
# longer found; 2 if it cannot look.
#
#   -v   list the allowed and accepted hits too, each saying why
#   -s   instead, what later labs' files give away of earlier labs, a line a stage
#   -l   instead, the solution lines it looks for: LAB<tab>STAGE<tab>LINE
set -eu
mode=leaks
case ${1:-} in -v) mode=all; shift ;; -s) mode=summary; shift ;; -l) mode=lines; shift ;; esac
if [ $# = 0 ] || [ ! -d "$1" ]; then echo "usage: leaks.sh [-v | -s | -l] COPY [LAB...]" >&2; exit 2; fi
copy=$(cd "$1" && pwd)
shift
min=${MIN:-28}
here=$(cd "$(dirname "$0")/.." && pwd)
accepted=${ACCEPTED:-$here/authoring/leaks-accepted.txt}
cd "$here"
read -ra course <<< "$(sed -n 's/^COURSE *:= *//p' Makefile)"
written=()
for lab in "${course[@]}"; do [ ! -f "solutions/$lab/$lab.cu" ] || written+=("$lab"); done
[ $# -gt 0 ] || set -- "${written[@]}"
for lab in "$@"; do
    case " ${written[*]} " in *" $lab "*) ;; *)
        echo "leaks: $lab is not a lab with a solution here; the labs: ${written[*]}" >&2; exit 2 ;;
    esac
done
shipped=$(for lab in "${course[@]}"; do [ ! -d "$copy/labs/$lab" ] || printf '%s ' "$lab"; done)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/leaks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Whitespace runs as one space, none at the ends; HTML's entities decoded.
collapse='function collapse(s) {
    gsub(/[ \t\r\f\v]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
    if (index(s, "&")) {
        gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
        gsub(/&#39;|&apos;/, "'\''", s); gsub(/&amp;/, "\\&", s)
    }
    return s
}'

# The lines to look for, the labs in course order: a lab's skeleton (its
# .cu through skeleton.awk, its headers as they are), then its solution.
args=()
for lab in "${written[@]}"; do
    for f in solutions/"$lab"/*; do
        case $f in
            *.cu) awk -f authoring/skeleton.awk "$f" ;;
            *.h | *.cuh) cat "$f" ;;
        esac
    done > "$tmp/skeleton-$lab"
    args+=("lab=$lab" "part=skeleton" "$tmp/skeleton-$lab" "part=solution" solutions/"$lab"/*.cu)
done
awk -v wanted=" $* " -v min="$min" "$collapse"'
    part == "skeleton" { skeleton = skeleton "\n" collapse($0); next }
    FNR == 1 { state = "" }
    state == "" && /\/\* STUDENT / {
        stage = $0; sub(/.*\/\* STUDENT /, "", stage); sub(/[ -]*(\*\/[ -]*)?$/, "", stage)
        state = "hint"
    }
    state == "hint" { if (/\*\//) state = "code"; next }
    state == "code" && /\/\* END STUDENT \*\// { state = ""; next }
    state == "code" {
        line = collapse($0)
        if (length(line) < min) next
        if (line in lab_of) { if (lab_of[line] != lab) shared[line]; next_stage(); next }
        if (index(skeleton, line)) next
        lab_of[line] = lab
        next_stage()
    }
    function next_stage() {
        if (lab_of[line] == lab && index(wanted, " " lab " ") && !((stage, line) in seen)) {
            seen[stage, line]
            found[++n] = lab "\t" stage "\t" line; text[n] = line
        }
    }
    END { for (i = 1; i <= n; i++) if (!(text[i] in shared)) print found[i] }' "${args[@]}" > "$tmp/lines"
if [ "$mode" = lines ]; then cat "$tmp/lines"; exit 0; fi

# What to read: "PATH<tab>NAME", NAME as a hit reports it. Files that
# grep finds a gzip's or a tar's mark in are looked at closer.
cd "$copy"
find . -type f | sed 's|^\./||' | sort > "$tmp/files"
magic() { head -c "$2" "$1" | tail -c "$3" | od -An -tx1 | tr -d ' \n'; }
as_text() { # PATH NAME [DEPTH]: the file, decompressed or unpacked
    local depth=${3:-0} out m
    if [ "$depth" -lt 4 ] && [ "$(magic "$1" 2 2)" = 1f8b ]; then
        out=$(mktemp "$tmp/unpacked/XXXXXX")
        gzip -dc < "$1" > "$out" 2> /dev/null || true
        as_text "$out" "$2" $((depth + 1))
    elif [ "$depth" -lt 4 ] && [ "$(magic "$1" 262 5)" = 7573746172 ]; then # "ustar" at 257
        out=$(mktemp -d "$tmp/unpacked/XXXXXX")
        tar -xf "$1" -C "$out" 2> /dev/null || true
        (cd "$out" && find . -type f | sed 's|^\./||') | while IFS= read -r m; do
            as_text "$out/$m" "$2/$m" $((depth + 1))
        done
    else
        printf '%s\t%s\n' "$1" "$2"
    fi
}
mkdir "$tmp/unpacked"
tr '\n' '\0' < "$tmp/files" | LC_ALL=C xargs -0 -r grep -laP '^\x1f\x8b|ustar' -- > "$tmp/marked" || true
while IFS= read -r f; do as_text "$f" "$f"; done < "$tmp/marked" > "$tmp/read"
awk 'FILENAME == ARGV[1] { marked[$0]; next } !($0 in marked) { print $0 "\t" $0 }' \
    "$tmp/marked" "$tmp/files" >> "$tmp/read"

# Every line read, collapsed, as NAME:LINE:TEXT; grep keeps those that hold
# a solution line, looking for all at once.
cut -f3 "$tmp/lines" > "$tmp/patterns"
awk -F '\t' "$collapse"'
    { n = 0
      while ((getline line < $1) > 0) print $2 ":" ++n ":" collapse(line)
      close($1) }' "$tmp/read" | LC_ALL=C grep -aF -f "$tmp/patterns" > "$tmp/hits" || true

# The #include "..." lines of the copy, FILE<tab>NAME, for the headers' labs.
tr '\n' '\0' < "$tmp/files" | xargs -0 -r grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' -- \
    2> /dev/null | sed -E 's/:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\t\1/' \
    > "$tmp/includes" || true
grep -v '^#' "$accepted" 2> /dev/null | grep ': ' > "$tmp/accepted" || true

awk -F '\t' -v mode="$mode" -v course="${course[*]}" -v shipped=" $shipped" -v copy="$copy" \
    -v accepted_file="${accepted#"$here"/}" '
    FILENAME == ARGV[1] { file[$0]; nfiles++; next }
    FILENAME == ARGV[2] { inc_from[++ninc] = $1; inc_name[ninc] = $2; next }
    FILENAME == ARGV[3] { lab_of[++nlines] = $1; stage_of[nlines] = $2; text_of[nlines] = $3; next }
    FILENAME == ARGV[4] { # FILE: LINE
        i = index($0, ": "); ok[substr($0, 1, i - 1), substr($0, i + 2)] = 0; next
    }
    {   # a hit: NAME:LINE:TEXT
        match($0, /:[0-9]+:/)
        hit_name[++nhits] = substr($0, 1, RSTART - 1)
        hit_line[nhits] = substr($0, RSTART + 1, RLENGTH - 2)
        hit_text[nhits] = substr($0, RSTART + RLENGTH)
    }
    # The lab a path belongs to by its folders or its name, else 0.
    function by_path(path,   parts, k, n, c, l) {
        n = split(path, parts, "/")
        for (k = 1; k <= n; k++) {
            c = parts[k]
            sub(/^[0-9]+-/, "", c)
            for (l = 1; l <= nlabs; l++)
                if (c == labs[l] || index(c, labs[l] "-") == 1 || index(c, labs[l] ".") == 1 ||
                    index(c, labs[l] "_") == 1) return l
            if (k < n && c in family) return family[c]
        }
        return 0
    }
    function resolve(from, name,   f) { # an #include "name" of the file from
        f = from; sub(/[^\/]*$/, "", f)
        if ((f name) in file) return f name
        if (("common/" name) in file) return "common/" name
        for (f in file) if (f ~ /^(spec|tests)\/[^\/]+\// && substr(f, length(f) - length(name)) == "/" name) return f
        return ""
    }
    function plural(n, what) { return n " " what (n == 1 ? "" : "s") }
    END {
        nlabs = split(course, labs, " ")
        for (l = nlabs; l >= 1; l--) {
            rank[labs[l]] = l
            f = labs[l]; if (sub(/-.*/, "", f)) family[f] = l
        }
        for (f in file) owner[f] = by_path(f)
        do { # a header: the earliest lab whose files reach it
            changed = 0
            for (i = 1; i <= ninc; i++) {
                if (!(o = owner[inc_from[i]])) continue
                h = resolve(inc_from[i], inc_name[i])
                if (h != "" && !by_path(h) && (!owner[h] || o < owner[h])) { owner[h] = o; changed = 1 }
            }
        } while (changed)
        for (h = 1; h <= nhits; h++) {
            name = hit_name[h]
            if (name in owner) o = owner[name]
            else { # a member of a tar: by its path, or the tar holding it
                o = by_path(name)
                for (f in file) if (index(name, f "/") == 1 && owner[f] > o) o = owner[f]
            }
            if (!index(shipped, " " labs[o] " ")) o = 0 # a lab the copy lacks gives nothing
            delete said
            for (p = 1; p <= nlines; p++) {
                if (!index(hit_text[h], text_of[p])) continue
                l = lab_of[p]
                if ((l, stage_of[p]) in said) continue
                said[l, stage_of[p]]
                why = ""
                if (o > rank[l]) { why = "given by " labs[o] ", later"; given++ }
                else if ((name, text_of[p]) in ok) { why = "accepted"; ok[name, text_of[p]]++; taken++ }
                else leaks++
                if (mode == "leaks" && why == "" || mode == "all")
                    printf "%s:%s: %s, %s: %s%s\n", name, hit_line[h], l, stage_of[p], text_of[p],
                        why == "" ? "" : "   [" why "]"
                if (why ~ /^given/) {
                    g = labs[o] SUBSEP l SUBSEP stage_of[p]
                    count[g]++
                    if (index(" " where[g] " ", " " name " ") == 0) where[g] = where[g] (where[g] == "" ? "" : ", ") name
                }
            }
        }
        if (mode == "summary") {
            for (g in count) { # sorted below: by the lab given away, then the giver
                split(g, part, SUBSEP)
                printf "%d %d %s\t%s gives %s, %s: %s in %s\n", rank[part[2]], rank[part[1]], part[3],
                    part[1], part[2], part[3], plural(count[g], "line"), where[g]
            }
            exit 0
        }
        for (k in ok) if (ok[k] == 0) { # in the copy, looked for, and not found: stale
            split(k, e, SUBSEP)
            for (p = 1; p <= nlines; p++) if (text_of[p] == e[2] && e[1] in file) {
                printf "leaks: %s accepts %s: %s, which is no longer there\n", accepted_file, e[1], e[2]
                stale++
                break
            }
        }
        printf "leaks: %s in %s (%s)", leaks ? plural(leaks, "solution line") " where none may be" : "none", \
            copy, plural(nfiles, "file")
        if (given) printf "; %s of earlier labs in later labs%s files (-s says which)", plural(given, "line"), "\047"
        if (taken) printf "; %s accepted in %s", plural(taken, "line"), accepted_file
        printf "\n"
        exit leaks + stale > 0
    }' "$tmp/files" "$tmp/includes" "$tmp/lines" "$tmp/accepted" "$tmp/hits" > "$tmp/report" || status=$?
if [ "$mode" = summary ]; then sort -V "$tmp/report" | cut -f2-; else cat "$tmp/report"; fi
exit "${status:-0}"
