#!/usr/bin/env bash
# grade.sh BUILD SUBMISSIONS OUT LAB...: `make grade`. Grades every folder in
# SUBMISSIONS (each holding labs/<lab>/<lab>.cu for the labs it has), several
# at once, and writes OUT/summary.md, OUT/grades.csv and, per submission,
# OUT/<name>/ with its logs, scores and diffs.
#
# What a submission can touch, and what decides its grade:
# - Only the code inside its TODO regions (and whole code added between two
#   declarations) is used: grading/splice.awk puts it into the grader's own
#   skeleton, so the stage table, the launchers and the includes are always
#   the grader's; a region that would bend them (an #if left open, a
#   #define of a frame's name) is left empty, and any change is reported.
# - It is built (GRADED=1: no CPU reference linked in) in a disposable copy
#   of this checkout's committed tree (without solutions/), inside
#   grading/sandbox.sh: a file system that holds only the toolchain and that
#   copy, no network, its own processes, a CPU share, time limits. A stage
#   that uses what the emulation lacks ("emulation: not provided: X") is
#   left out and the rest built again, so only that stage scores 0.
# - Each stage then runs in sandboxes of its own, each in a fresh folder
#   holding the binary alone: once for every case (run dump=...), leaving
#   its results in files; and once counted by the emulated build at the
#   lab's technique case (run technique=ID dump=...), leaving the counts
#   sealed with a key made for that run alone (common/seal.c, "the
#   technique record") and the counted run's results.
# - The grade comes from this checkout's own binary, which never runs student
#   code: it rebuilds each case's inputs and reference from a seed drawn
#   here, and judges those files (run judge=...); it checks the record's
#   seal, judges the counted run's outputs, and says from the counts whether
#   the kernel shows the stage's idea (run technique=ID judge=...). A stage
#   gets its points only if every case was judged right and its idea shows;
#   right outputs without the idea get the weights file's technique share
#   less (all of them by default), a forged record nothing ("review").
#   Nothing the submission prints counts, nor reaches a report but as its
#   own words, quoted (a compiler's first error; its process's failure).
#   The seal stops a printed or written record, not code that digs the key
#   out of its own process's memory: that takes deliberate work, and shows
#   in its file.
# - Two tiers (grading/grade-slurm.sh GPU_PARTITION=): tier 1, under the
#   emulation on CPU nodes, with GPU_ARCH= also builds, for that GPU, each
#   lab where a stage scored, and keeps the binary (gpu.run); tier 2,
#   TIER1=its OUT, on a GPU node, builds nothing: it runs that binary for
#   the stages that scored in tier 1 alone, judges them again, and copies
#   tier 1's rows for the rest. A stage right on the GPU is then timed
#   there at n = 2^24 (run time=ID dump=..., sealed as the technique
#   record is), beside the reference solution, which tier 1 built for the
#   GPU: where the reference's stage is at least 4 times faster than its
#   stage before, a stage no faster than halfway between the two
#   (geometrically) does not show its idea, whatever the counts said (a
#   chain of waits passes for a look-back there): it loses the technique
#   share, flagged "slow" for review, once the reference, timed again,
#   agrees. A submission's stages share GPU_SECONDS of the GPU (default
#   300); a stage the budget leaves no time for fails.
set -u
# shellcheck source=grading/names.sh
. "$(dirname "$0")/names.sh"
# shellcheck source=grading/score-tsv.sh
. "$(dirname "$0")/score-tsv.sh"
build=$1 submissions=$2 out=$3
shift 3
labs=("$@")
here=$(pwd)
export EMU=${EMU:-0}
# where a stage's outputs were judged, for the reports (score.tsv's judged)
judged_on=$([ "$EMU" = 1 ] && echo emulation || echo GPU)
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
weights=${WEIGHTS:-grading/weights.txt}
jobs=${JOBS:-$(nproc)}
# each sandbox's CPU share (grading/sandbox.sh): the machine's cores shared
# among the submissions graded at once, so that a hog slows itself alone
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "grade: JOBS=$jobs is no number of submissions at once"; exit 1; }
export SANDBOX_CPUS=${SANDBOX_CPUS:-$(awk -v c="$(nproc)" -v j="$jobs" 'BEGIN { print c / j }')}
[ -d "$submissions" ] || { echo "grade: SUBMISSIONS=$submissions is not a folder"; exit 1; }
# where a link leads (pwd -P), for find would not follow it
submissions=$(cd "$submissions" && pwd -P) || exit 1
# Every folder in it is a submission. An empty one grades nobody and only
# prepares the judges (Gradescope's setup.sh does that); one that holds only
# what is not a folder is a mistake.
others=$(find "$submissions" -mindepth 1 -maxdepth 1 ! -type d -printf '%f, ' | LC_ALL=C tr '\000-\037\177' '?')
if [ -n "$others" ] && [ -z "$(find "$submissions" -mindepth 1 -maxdepth 1 -type d -print -quit)" ]; then
    echo "grade: SUBMISSIONS=$submissions holds no submission folder, only ${others%, } (a link in it" \
        "is not followed); a submission is a folder with labs/<lab>/<lab>.cu, and an empty" \
        "SUBMISSIONS only prepares the judges"
    exit 1
fi
[ -z "$others" ] || echo "grade: not graded, not being folders (a link in SUBMISSIONS is not followed): ${others%, }"
case $(realpath -m -- "$out")/ in "$submissions"/*)
    echo "grade: OUT=$out is inside SUBMISSIONS=$submissions, where it would be graded as a" \
        "submission: give an OUT elsewhere"
    exit 1 ;;
esac
mkdir -p "$out" && chmod 700 "$out" || exit 1 # grades are no one else's to read
out=$(cd "$out" && pwd)
# one grading at a time in an OUT; others may run beside it in other OUTs
exec 9> "$out/.lock"
flock -n 9 || { echo "grade: another make grade is writing to $out: wait for it, or give another OUT="; exit 1; }

# What the judge of a lab answers (its run list=...): the stage ids, and
# the cases each stage is judged at, SIZE:BLOCK (a matrix's ROWSxCOLS).
stage_ids() { "$build/solutions/$1/run" list=stages | cut -f1; }
cases() { "$build/solutions/$1/run" list=cases | tr '\t' :; }

# A stage's points: the weights file's "lab stage points", else 1.
points() {
    local p
    p=$(awk -v l="$1" -v s="$2" '$1 == l && $2 == s { print $3 }' "$weights" 2> /dev/null)
    echo "${p:-1}"
}
# The share of a stage's points its technique carries: the weights file's
# "technique SHARE" (0 to 1), else 1: right outputs without the idea score 0.
technique_share() {
    awk '$1 == "technique" && $2 ~ /^(0|1|0?\.[0-9]+)$/ && $2 <= 1 { s = $2 } END { print (s == "" ? 1 : s) }' \
        "$weights" 2> /dev/null || echo 1
}

# Where the kernels ran, for every report.
commit=$(git rev-parse --short HEAD 2> /dev/null) || commit="none (no git checkout)"
if [ "$EMU" = 1 ]; then
    where="under the CPU emulation (EMU=1): no GPU ran them"
    make --no-print-directory -s need-nvcc > /dev/null 2>&1 &&
        where+="; nvcc compile-checked each submission's kernels"
else
    where="on $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)"
fi
printf 'Graded %s at commit %s, seed %s, kernels run %s.\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$commit" "$seed" "$where" > "$out/.how"
rm -rf "$out/.work" "$out/.graded"
# Each submission is built and run in a folder of its own under one that is
# outside every folder the sandbox hides (this checkout, SUBMISSIONS, OUT),
# and gone when the grading ends, however it ends.
works=$(mktemp -d "${TMPDIR:-/tmp}/grade-work.XXXXXX") && chmod 711 "$works" || exit 1
trap 'rm -rf "$works"' EXIT
trap 'exit 130' INT TERM HUP

# What every grading of this tree shares, made once and kept in the build
# folder (two gradings at once take turns): the judges, this checkout's own
# binaries built from the solutions; and the pristine tree each submission
# is built in, the committed files less the solutions (where this is no git
# checkout, as in an autograder's copy, the files as they are), with every
# object but the student's built from its skeletons, so that a submission's
# build compiles only its own file.
pristine=$here/$build/pristine
prepare() {
    local tree
    tree=$(if [ "$commit" = "${commit#none}" ]; then git rev-parse HEAD; else
        find common spec tests tools labs mk Makefile -type f -print0 | sort -z | xargs -0 md5sum | md5sum; fi)
    if [ "$(cat "$pristine/.tree" 2> /dev/null)" != "$tree" ]; then
        echo "grade: making the pristine tree, and its skeletons' objects"
        rm -rf "$pristine" && mkdir -p "$pristine" || return 1
        if [ "$commit" = "${commit#none}" ]; then
            git archive --format=tar HEAD | tar -x -C "$pristine" || return 1
        else
            tar -c --exclude=./build --exclude=./solutions --exclude=./backups \
                --exclude="./${out#"$here"/}" . | tar -x -C "$pristine" || return 1
        fi
        rm -rf "$pristine/solutions" "$pristine/results"
    fi
    echo "grade: building the judges and the skeletons (EMU=$EMU, seed $seed)"
    for lab in "${labs[@]}"; do
        make --no-print-directory EMU="$EMU" SOLUTION=1 LAB="$lab" "$build/solutions/$lab/run" &&
            make -C "$pristine" --no-print-directory EMU="$EMU" GRADED=1 LAB="$lab" "$build/labs/$lab/run" || return 1
        if [ -n "${GPU_ARCH:-}" ] && [ "$GPU_ARCH" != emu ]; then # tier 1 of two: the skeleton's objects for the GPU too
            make -C "$pristine" --no-print-directory EMU=0 ARCH="$GPU_ARCH" GRADED=1 LAB="$lab" \
                "build/labs/$lab/run" || return 1
            # and the reference solution, whose stages tier 2 times beside the submissions'
            make --no-print-directory EMU=0 ARCH="$GPU_ARCH" SOLUTION=1 LAB="$lab" BUILD="$build/gpu" \
                "$build/gpu/solutions/$lab/run" || return 1
        fi
        # a judge with nothing to judge would grade every submission 0 of 0
        if [ -z "$(stage_ids "$lab")" ] || [ -z "$(cases "$lab")" ]; then
            echo "grade: the judge of $lab names no stages or no cases"
            return 1
        fi
    done >> "$out/judges.log" 2>&1
    echo "$tree" > "$pristine/.tree"
}
[ "$commit" = "${commit#none}" ] && [ -n "$(git status --porcelain -- common spec tests tools labs mk Makefile)" ] &&
    echo "grade: this checkout has uncommitted changes; grading uses the committed tree ($commit)"
# A Slurm task (PREPARED=1) finds them made by the job that submitted it,
# and tier 2 builds nothing: tier 1's judges, and its binaries.
if [ -n "${TIER1:-}" ] || [ "${PREPARED:-}" = 1 ]; then
    [[ ${GPU_SECONDS:-300} =~ ^[1-9][0-9]*$ ]] || { echo "grade: GPU_SECONDS=$GPU_SECONDS is no number of seconds"; exit 1; }
    for lab in "${labs[@]}"; do
        [ -x "$build/solutions/$lab/run" ] || { echo "grade: no judge of $lab in $build: was it prepared?"; exit 1; }
    done
    [ -n "${TIER1:-}" ] || [ "$(cat "$pristine/.tree" 2> /dev/null)" ] ||
        { echo "grade: no pristine tree in $pristine: was it prepared?"; exit 1; }
else
    mkdir -p "$build" && : > "$out/judges.log"
    { flock 8 && prepare; } 8> "$build/.grade.lock" 9>&- < /dev/null ||
        { echo "grade: the judges or the skeletons do not build: see $out/judges.log"; exit 1; }
fi

# The sandbox must hold before anyone is graded: asked once, on an empty
# folder, with what it must hide. Without user namespaces, as another user
# than root, nothing keeps a submission from this user's files: that takes
# SANDBOX=trust, for code one trusts.
mkdir "$works/probe" || exit 1
sandbox=$(grading/sandbox.sh "$works/probe" 60 "$here" "$submissions" "$out" -- true 2>&1) ||
    { echo "grade: the sandbox refuses to run: ${sandbox#sandbox: }"; exit 1; }
if [[ $sandbox == *"without isolation"* ]] && [ "${SANDBOX:-}" != trust ]; then
    echo "grade: no user namespaces here (or SANDBOX=none), and not root: each submission would run"
    echo "       with your rights, your files and the other submissions open to it. Run make grade"
    echo "       as root (as in a container), allow user namespaces, or give SANDBOX=trust to grade"
    echo "       code you trust."
    exit 1
fi
printf 'Sandbox: %s.\n' "$( [ -n "$sandbox" ] && echo "${sandbox#sandbox: }" ||
    echo "its own user, mount, PID and network namespaces (grading/sandbox.sh)")" >> "$out/.how"

# A file's frame, as grading/splice.awk finds it against the skeleton $1:
# the file $2 without the code of its TODO regions.
frame() { awk -v frame=1 -f grading/splice.awk "$1" "$2" 2> /dev/null | sed -E 's/[ -]*$//'; }
# What a sandboxed command prints is kept up to a cap, and the rest read and
# dropped: a stage that talks a lot must not die of a closed pipe. With a
# LOG, appended to it, up to the cap in all.
cap() { # [LOG]
    if [ $# = 0 ]; then head -c 200000; cat > /dev/null; return; fi
    local left=$((200000 - $(stat -c %s "$1" 2> /dev/null || echo 0)))
    { [ "$left" -le 0 ] || head -c "$left"; cat > /dev/null; } >> "$1"
}

# One lab of one submission, into OUT/NAME/LAB: its file spliced into the
# grader's frame, built, each stage run and judged, scored. The steps below
# share grade_lab's locals (bash's scope is dynamic); one that stops the
# grading early has scored every stage, saying why, and returns false.
grade_lab() { # SUBMISSION NAME LAB
    local sub=$1 name=$2 lab=$3 dir="$out/$2/$3" work="$works/$2-$3"
    local stages hide=("$here" "$submissions" "$out")
    local bin=build/labs/$lab/run ebin=build/emu/labs/$lab/run
    [ "$EMU" = 1 ] && bin=$ebin
    declare -A left_out=() stopped=()
    mkdir -p "$dir"
    stages=$(stage_ids "$lab")
    score_header > "$dir/score.tsv"
    rm -f "$dir/frame.note"
    if splice_submission && build_submission; then
        run_stages
        score_stages
        build_for_gpu
    fi
    rm -rf "$work"
}

# A stage's row of score.tsv (grading/score-tsv.sh): its points where
# STATUS is pass, all but the technique's share where it is lazy, else
# none; its technique - unless given.
score_stage() { # STAGE STATUS WHY [TECHNIQUE]
    local p got
    p=$(points "$lab" "$1")
    got=0
    [ "$2" = pass ] && got=$p
    [ "$2" = lazy ] && got=$(awk -v p="$p" -v s="$(technique_share)" 'BEGIN { print p * (1 - s) }')
    score_row lab="$lab" stage="$1" points="$got" max="$p" why="$3" technique="${4:--}" judged="$judged_on" \
        >> "$dir/score.tsv"
}
score_all() { # STATUS WHY: every stage alike
    local s
    for s in $stages; do score_stage "$s" "$@"; done
}

# The submission's file, checked, kept as submitted.cu, and its TODO
# regions spliced into the skeleton in $work, a copy of the pristine tree;
# how it differs from the skeleton and the solution kept beside.
splice_submission() {
    local src="$sub/labs/$lab/$lab.cu" skeleton="$pristine/labs/$lab/$lab.cu"
    # a link could hand over another student's file, or any the grader reads
    local path=$sub part
    for part in labs "$lab" "$lab.cu"; do
        path+=/$part
        [ -L "$path" ] && { score_all link "labs/$lab/$lab.cu is or lies under a link (${path#"$sub"/}): hand in the file itself"; return 1; }
    done
    [ -e "$src" ] || { score_all missing "no labs/$lab/$lab.cu in the submission"; return 1; }
    [ -f "$src" ] || { score_all missing "labs/$lab/$lab.cu is not a plain file"; return 1; }
    [ "$(wc -c < "$src")" -le 1048576 ] ||
        { score_all structure "labs/$lab/$lab.cu is over 1 MiB: no lab's file is near that size"; return 1; }
    rm -rf "$work" && mkdir -p "$work" && cp -a "$pristine/." "$work/" && cp "$src" "$dir/submitted.cu"
    # the student's regions into the grader's frame
    diff -u <(frame "$skeleton" "$skeleton") <(frame "$skeleton" "$dir/submitted.cu") > "$dir/frame.diff"
    if ! timeout 60 awk -v notes="$dir/splice.notes" -f grading/splice.awk "$skeleton" "$dir/submitted.cu" \
            > "$work/labs/$lab/$lab.cu" 2> "$dir/splice.log"; then
        score_all structure "$(head -c 300 "$dir/splice.log")"
        return 1
    fi
    diff -u "$skeleton" "$work/labs/$lab/$lab.cu" > "$dir/diff-skeleton.diff"
    diff -u "$here/solutions/$lab/$lab.cu" "$work/labs/$lab/$lab.cu" > "$dir/diff-solution.diff"
    { cat "$dir/splice.notes" 2> /dev/null
      [ -s "$dir/frame.diff" ] && echo "the file differs from the skeleton outside the TODO regions (frame.diff):" \
          "lines added between two functions are used, other changes are not"
    } > "$dir/frame.note"
    [ -s "$dir/frame.note" ] || rm -f "$dir/frame.note"
}

# The spliced lab built, untrusted, into build.log. A stage that uses what
# the emulation lacks (the build says "emulation: not provided: X
# (FILE:LINE)") is left out, its regions as the skeleton's, and the others
# built again: they keep their marks.
build_submission() {
    rm -f "$work/$bin" "$work/$ebin" # the skeleton's, from the pristine tree
    : > "$dir/build.log"
    build_in_sandbox
    local spliced=$work/labs/$lab/$lab.cu line what stage
    if [ ! -x "$work/$bin" ]; then
        while IFS=$'\t' read -r line what; do
            stage=$(region_stage "$spliced" "$line")
            [ -n "$stage" ] || { left_out=(); break; } # outside a stage's regions: no stage to leave out
            left_out[$stage]+="${left_out[$stage]:+, }$what"
        done < <(sed -n "s/^emulation: not provided: \(.*\) ([^ ]*$lab\.cu:\([0-9]*\))\$/\2\t\1/p" "$dir/build.log" |
            sort -u | head -n 20)
        if [ ${#left_out[@]} -gt 0 ]; then
            echo "grade: built again without the code of stage ${!left_out[*]}" >> "$dir/build.log"
            blank_stages "$spliced" "${!left_out[@]}" && build_in_sandbox
        fi
    fi
    if [ ! -x "$work/$bin" ]; then
        local why
        why=$(grep -m1 -E -e '(^|[^A-Za-z])error([^A-Za-z]|$)' -e '^sandbox: (stopped|refused|could not)' \
            "$dir/build.log" | head -c 300 | LC_ALL=C tr -d '"')
        score_all build "does not compile; its first error, as the compiler quoted the file (build.log): \"${why:-none found}\""
        return 1
    fi
}
# The techniques are counted by the emulated build, on a GPU too: both are
# made by grading/build-lab.sh, the pristine tree's copy (the sandbox
# reaches no other).
build_in_sandbox() {
    SANDBOX_KEEP=build grading/sandbox.sh "$work" "${GRADE_BUILD_SECONDS:-600}" "${hide[@]}" -- \
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL grading/build-lab.sh "$lab" "$EMU" "$bin" "$ebin" 2>&1 |
        cap "$dir/build.log"
}

# Each stage in sandboxes of its own, each time in a fresh folder that
# holds the binary alone: one run for all its cases (one CUDA context),
# then, unless it was stopped, its technique, counted by the emulated
# build. So a stage that crashes, hangs or races costs no other its
# marks, and no run can leave results or a record for another. What
# decides the grade is read here: the sandboxes' exit statuses, and the
# files they leave, judged by this checkout's binary; nothing they print,
# which is kept in run.log as the submission's own output.
run_stages() {
    local s each=${GRADE_STAGE_SECONDS:-120} status box=$work.box
    : > "$dir/run.log" && : > "$dir/judge.log"
    for s in $stages; do
        [ -z "${left_out[$s]:-}" ] || continue
        sandbox_stage "$box" "$work/$bin" "$each" "$dir/run.log" dump=results cases=all stage="$s" seed="$seed"
        status=$?
        case $status in
        124 | 137) stopped[$s]="stopped after $each s (hung?); " ;;
        125) stopped[$s]="stopped for holding more than ${SANDBOX_MEM_MB:-2048} MiB; " ;;
        126) stopped[$s]="the sandbox refused to run it; " ;;
        esac
        # only plain files are judged: a link could point at another's
        # results, a pipe would stall the judge
        if [ -n "$(find "$box/results" ! -type d ! -type f -print -quit 2> /dev/null)" ]; then
            stopped[$s]+="its results held a link or a special file, so none were judged; "
            rm -rf "$box/results" && mkdir "$box/results"
        fi
        judge "$lab" "$box/results" "$dir/judge.log" stage="$s"
        [ -n "${stopped[$s]:-}" ] && continue
        # its technique: a record sealed with a key for this run alone
        local key
        key=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
        SEAL=$key sandbox_stage "$box" "$work/$ebin" "$each" "$dir/run.log" technique="$s" seed="$seed" \
            dump=results/technique
        if [ -n "$(find "$box/results" ! -type d ! -type f -print -quit 2> /dev/null)" ]; then
            printf 'TECHNIQUE\t%s\treview\tits technique run left a link or a special file: flagged for review, no credit\t\n' \
                "$s" >> "$dir/judge.log"
        else
            WORKBOOK_SEAL_KEY=$key "$build/solutions/$lab/run" technique="$s" seed="$seed" \
                judge="$box/results/technique" >> "$dir/judge.log" 2>&1
        fi
        grep -q "^TECHNIQUE	$s	" "$dir/judge.log" ||
            printf 'TECHNIQUE\t%s\tuncounted\tits record could not be judged\t\n' "$s" >> "$dir/judge.log"
    done
    rm -rf "$box"
}

# Each stage's row, from what judge.log says of its cases and technique.
score_stages() {
    local s cases_n
    cases_n=$(cases "$lab" | wc -w)
    for s in $stages; do
        local right wrong
        read -r right wrong < <(judged "$s" "$dir/judge.log")
        if [ -n "${left_out[$s]:-}" ]; then
            score_stage "$s" build "uses ${left_out[$s]}, which the CPU emulation does not provide (on a GPU" \
                "this compiles): not graded here; the other stages were built without its code"
        elif [ "$wrong" -eq 0 ] && [ "$right" -ge "$cases_n" ]; then
            local technique verdict
            technique=$(technique_of "$s" "$dir/judge.log")
            verdict=${technique%%$'\t'*}
            case $verdict in
            shown) score_stage "$s" pass "$right cases right, and its kernel shows its idea" shown ;;
            wrong) score_stage "$s" fail "$right cases right, but ${technique#*$'\t'}" ;; # a race the cases' runs hid
            review) score_stage "$s" review "$right cases right, but ${technique#*$'\t'}" review ;;
            missing) score_stage "$s" lazy "$right cases right, but ${technique#*$'\t'}" missing ;;
            *) score_stage "$s" lazy "$right cases right, but its technique could not be counted: ${technique#*$'\t'}" missing ;;
            esac
        else
            score_stage "$s" fail "${stopped[$s]:-}$wrong of $((right + wrong)) cases wrong; first: $(first_wrong "$s" "$dir/judge.log")"
        fi
    done
}

# Tier 1 of two (GPU_ARCH=): a lab where a stage scored goes to the GPU
# next, as a binary built here, on a CPU node, for that GPU.
# (GPU_ARCH=emu, for tests on a machine without one: the emulated build.)
build_for_gpu() {
    rm -f "$dir/gpu.run"
    if [ -z "${GPU_ARCH:-}" ] || ! score_awk '$col["points"] > 0 { f = 1 } END { exit !f }' "$dir/score.tsv"; then
        : # one tier, or nothing for the GPU to judge again
    elif [ "$GPU_ARCH" = emu ]; then
        cp "$work/$ebin" "$dir/gpu.run"
    else
        rm -f "$work/build/labs/$lab/run"
        SANDBOX_KEEP=build grading/sandbox.sh "$work" "${GRADE_BUILD_SECONDS:-600}" "${hide[@]}" -- \
            env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -j2 EMU=0 ARCH="$GPU_ARCH" \
            GRADED=1 LAB="$lab" "build/labs/$lab/run" 2>&1 | cap > "$dir/gpu-build.log"
        [ -x "$work/build/labs/$lab/run" ] && cp "$work/build/labs/$lab/run" "$dir/gpu.run"
    fi
}

# Tier 2 (TIER1=its OUT): on the GPU, only the stages of a lab that scored
# in tier 1, with the binary tier 1 built; tier 1's rows for the rest. Each
# stage in a sandbox of its own, timed from here, within what is left of
# the submission's GPU budget (gpu_left, in ms, kept by grade_one).
gpu_lab() { # NAME LAB
    local name=$1 lab=$2 dir="$out/$1/$2" from="$TIER1/$1/$2" work="$works/$1-$2"
    local hide=("$here" "$submissions" "$out" "$TIER1") each=${GRADE_STAGE_SECONDS:-120}
    mkdir -p "$dir" && cp -a "$from/." "$dir/" && rm -f "$dir/gpu.run" "$dir/gpu-run.log"
    local scored s
    scored=$(score_awk '$col["points"] > 0 { print $col["stage"] }' "$from/score.tsv")
    [ -n "$scored" ] || return 0
    declare -A took=() halted=() # halted: the grader's words, never read from the run's output
    : > "$dir/gpu-judge.log"
    local cases_n right wrong
    cases_n=$(cases "$lab" | wc -w)
    if [ -x "$from/gpu.run" ]; then
        for s in $scored; do
            local limit=$(( gpu_left / 1000 < each ? gpu_left / 1000 : each )) t0
            if [ "$limit" -lt 1 ]; then
                echo "grade: stage $s was not run: the submission's GPU budget of ${GPU_SECONDS:-300} s was spent" \
                    >> "$dir/gpu-run.log"
                continue
            fi
            # a fresh folder a stage: no stage's run can touch another's results
            rm -rf "$work" && mkdir -p "$work/results" && cp "$from/gpu.run" "$work/run" || return 1
            t0=$(date +%s%N)
            SANDBOX_KEEP=results grading/sandbox.sh "$work" "$((limit + 5))" "${hide[@]}" -- \
                timeout -k 2 "$limit" ./run dump=results cases=all stage="$s" seed="$seed" 2>&1 |
                cap "$dir/gpu-run.log"
            case ${PIPESTATUS[0]} in
            124 | 137) halted[$s]="stopped after $limit s (hung?); " ;;
            esac
            took[$s]=$(( ($(date +%s%N) - t0) / 1000000 ))
            gpu_left=$(( gpu_left - took[$s] ))
            if [ -n "$(find "$work/results" ! -type d ! -type f -print -quit)" ]; then
                echo "grade: stage $s: its results hold a link or a special file" >> "$dir/gpu-run.log"
                rm -rf "$work/results" && mkdir "$work/results" # judged as if it wrote nothing
            fi
            judge "$lab" "$work/results" "$dir/gpu-judge.log" stage="$s"
            # right in every case: then timed at time_size against the
            # reference (a record sealed with a key for this run alone),
            # where the GPU tier has the reference's times
            read -r right wrong < <(judged "$s" "$dir/gpu-judge.log")
            if [ ! -s "$works/reference-$lab.tsv" ] || [ "$wrong" -ne 0 ] || [ "$right" -lt "$cases_n" ]; then
                continue
            fi
            limit=$(( gpu_left / 1000 < each ? gpu_left / 1000 : each ))
            [ "$limit" -ge 1 ] || continue
            local key n
            key=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n') n=$(time_size "$lab")
            t0=$(date +%s%N)
            SEAL=$key sandbox_stage "$work" "$from/gpu.run" "$limit" "$dir/gpu-run.log" time="$s" n="$n" \
                block=256 seed="$seed" dump=results/time
            took[$s]=$(( took[$s] + ($(date +%s%N) - t0) / 1000000 ))
            gpu_left=$(( gpu_left - ($(date +%s%N) - t0) / 1000000 ))
            if [ -n "$(find "$work/results" ! -type d ! -type f -print -quit)" ]; then
                printf 'TIME\t%s\treview\t-\tits timed run left a link or a special file: flagged for review\n' \
                    "$s" >> "$dir/gpu-judge.log"
            else
                WORKBOOK_SEAL_KEY=$key "$build/solutions/$lab/run" time="$s" n="$n" block=256 seed="$seed" \
                    judge="$work/results/time" >> "$dir/gpu-judge.log" 2>&1
            fi
        done
        rm -rf "$work"
    fi
    # each row that scored: kept, judged on the GPU, if every case was right
    # there; else failed, saying why. Tier 1's rows read by the names its
    # header gives their fields (f[stage]); the others copied.
    local header row i why there="on the GPU" verdict timed
    local -a columns fields kept
    local -A f
    [ "$judged_on" = GPU ] || there="in tier 2 (emulated, GPU_ARCH=emu)"
    IFS= read -r header < "$from/score.tsv"
    IFS=$'\t' read -r -a columns <<< "$header"
    score_header > "$dir/score.tsv"
    while IFS= read -r row; do
        IFS=$'\t' read -r -a fields <<< "$row"
        f=()
        for i in "${!columns[@]}"; do f[${columns[i]}]=${fields[i]:-}; done
        s=${f[stage]}
        if ! grep -qxF "$s" <<< "$scored"; then printf '%s\n' "$row"; continue; fi
        kept=(lab="${f[lab]}" stage="$s" max="${f[max]}" judged="$judged_on")
        read -r right wrong < <(judged "$s" "$dir/gpu-judge.log")
        if [ ! -x "$from/gpu.run" ]; then
            why="right under the emulation, but it does not build for the GPU (gpu-build.log): $(grep -m1 -E '(^|[^A-Za-z])error([^A-Za-z]|$)' \
                "$dir/gpu-build.log" 2> /dev/null | head -c 300)"
        elif [ -z "${took[$s]:-}" ]; then
            why="right under the emulation, but not run $there: the submission's GPU budget of ${GPU_SECONDS:-300} s was spent"
        elif [ "$wrong" -eq 0 ] && [ "$right" -ge "$cases_n" ]; then
            local secs got
            secs=$(awk -v ms="${took[$s]}" 'BEGIN { printf "%.1f", ms / 1000 }')
            IFS=$'\t' read -r verdict why timed < <(time_verdict "$lab" "$s" "$dir/gpu-judge.log")
            if [ "$verdict" = slow ]; then
                # the reference timed again, now: a GPU shared by several
                # gradings may have slowed this stage, not its code
                "$build/gpu/solutions/$lab/run" time=all n="$(time_size "$lab")" block=256 seed="$seed" \
                    > "$work.reference" 2> /dev/null
                IFS=$'\t' read -r verdict why timed < <(time_verdict "$lab" "$s" "$dir/gpu-judge.log" "$work.reference")
                rm -f "$work.reference"
            fi
            case ${verdict:-ok} in
            ok)
                score_row "${kept[@]}" points="${f[points]}" technique="${f[technique]}" \
                    why="${f[why]}; right $there too${timed:+, in $timed} ($right cases in $secs s)"
                continue ;;
            slow | missing)
                # the technique's share withheld, as when the counts miss the idea
                got=$(awk -v p="${f[max]}" -v had="${f[points]}" -v s="$(technique_share)" \
                    'BEGIN { g = p * (1 - s); print (g < had ? g : had) }')
                score_row "${kept[@]}" points="$got" technique="$verdict" \
                    why="${f[why]}; right $there too ($right cases in $secs s), but $why"
                continue ;;
            review)
                why="right $there too, but $why" ;;
            *)
                why="right under the emulation, and $there in $right cases, but $why" ;;
            esac
            score_row "${kept[@]}" points=0 why="$why" technique="$([ "$verdict" = review ] && echo review || echo -)"
            continue
        else
            why="right under the emulation, but $there ${halted[$s]:-}$wrong of $((right + wrong)) cases wrong; first: $(first_wrong "$s" "$dir/gpu-judge.log")"
        fi
        score_row "${kept[@]}" points=0 why="$why" technique=-
    done < <(tail -n +2 "$from/score.tsv") >> "$dir/score.tsv"
}

# The stage whose TODO regions hold line $2 of spliced file $1; nothing
# when the line is in none, or in the helpers' region all stages share.
region_stage() { # FILE LINE
    awk -v at="$2" '/\/\* TODO / { stage = ($3 == "stage" ? $4 : ""); inside = 1 }
        NR == at { if (inside) print stage; exit }
        /END TODO/ { inside = 0 }' "$1"
}
# Empty the TODO regions of stages $2... in spliced file $1, as the
# skeleton's: their hints kept, their code gone.
blank_stages() { # FILE STAGE...
    local file=$1
    shift
    awk -v stages=" $* " '
        /\/\* TODO stage [0-9a-z]+ -/ { mine = index(stages, " " $4 " ") > 0; hint = 1 }
        hint && /\*\// { hint = 0; print; next }
        /END TODO/ { mine = 0 }
        mine && !hint { next } { print }' "$file" > "$file.blank" && mv "$file.blank" "$file"
}

# Run BINARY ARG... untrusted, in a fresh folder BOX that holds it alone
# (and, with SEAL=KEY, the key of a technique record in technique.key),
# stopped after SECONDS; what it prints goes to LOG, capped; it leaves only
# BOX/results. Returns the sandbox's status (124 or 137: stopped).
sandbox_stage() { # BOX BINARY SECONDS LOG ARG...
    local box=$1 binary=$2 seconds=$3 log=$4
    shift 4
    rm -rf "$box" && mkdir -p "$box/results" && cp "$binary" "$box/run" || return 1
    [ -z "${SEAL:-}" ] || (umask 077 && printf '%s' "$SEAL" > "$box/technique.key") || return 1
    SANDBOX_KEEP=results grading/sandbox.sh "$box" "$((seconds + 5))" "${hide[@]}" -- \
        timeout -k 2 "$seconds" ./run "$@" 2>&1 | cap "$log"
    return "${PIPESTATUS[0]}"
}

# The grader's binary judges the results a run left in folder $2 (a folder
# a case), here, adding to log $3; more arguments go to it (stage=ID).
judge() { # LAB RESULTS LOG [ARG...]
    local lab=$1 results=$2 log=$3 k=0 c
    shift 3
    for c in $(cases "$lab"); do
        k=$((k + 1))
        "$build/solutions/$lab/run" judge="$results/$k" n="${c%%:*}" block="${c##*:}" seed="$seed" "$@" >> "$log" 2>&1
    done
}
# How many of stage $1's cases judge log $2 holds right, and how many wrong.
judged() {
    awk -F'\t' -v s="$1" '$1 == "RESULT" && $2 == s { if ($6 == "ok") r++; else w++ }
        END { print r + 0, w + 0 }' "$2" 2> /dev/null || echo 0 0
}

# What this checkout's binary judged of stage $1's technique record, in
# judge log $2: the verdict (shown; missing; wrong: its counted run failed
# under the emulation; review: the record is forged; uncounted: there is
# none) and its sentence with its figures, tab-separated.
technique_of() {
    awk -F'\t' -v s="$1" '$1 == "TECHNIQUE" && $2 == s && $3 ~ /^(shown|missing|wrong|review|uncounted)$/ {
        print $3 "\t" ($3 == "wrong" ? "under the emulation, " : "") \
              $4 ($5 == "" ? "" : " (" $5 ")"); exit }' \
        "$2" 2> /dev/null | head -c 600
}

# The first wrong case of stage $1 in judge log $2, with its reason (the
# RESULT line's last field): the whole of an emulation's report, whose cause
# and fix may come after its first 300 characters.
first_wrong() {
    awk -F'\t' -v s="$1" '$1 == "RESULT" && $2 == s && $6 != "ok" {
        print (($3 == "-") ? "" : $3 ", ") "n = " $4 ", block " $5 ": " $7; exit }' "$2" | head -c 1200
}

# Where tier 2 times a stage: n = 2^24, or 4096 x 4096 for a matrix lab.
time_size() { [ "$("$build/solutions/$1/run" list=shape)" = matrix ] && echo 4096x4096 || echo '2^24'; }

# What stage $2's time on the GPU (judge log $3's TIME line) says of its
# idea, against the reference solution's times of lab $1 (its TIME lines,
# in stage order): nothing when it was not timed; else a line of three
# tab-separated fields: the verdict, why (- when there is nothing to say),
# and the time (- when none). The verdict: ok; slow (not faster than
# halfway, geometrically, between the reference's stage and the stage
# before it, where the reference gains at least 4 times: a missing idea
# does not make a kernel faster, and work done for nothing makes it
# slower); missing (no time recorded); review (a forged record); wrong
# (its timed run's outputs).
time_verdict() { # LAB STAGE LOG [REFERENCE]
    local ref=${4:-$works/reference-$1.tsv}
    [ -s "$ref" ] || return 0
    awk -F'\t' -v s="$2" -v n="$(time_size "$1")" '
        FILENAME == ARGV[1] && $1 == "TIME" && $3 == "timed" { if ($2 == s) { mine = $4; before = last } last = $4; next }
        FILENAME == ARGV[2] && $1 == "TIME" && $2 == s && status == "" { status = $3; ms = $4; why = $5 }
        END {
            if (status == "")
                exit
            if (status != "timed") {
                print (status == "untimed" ? "missing" : status) "\t" (why == "" ? "-" : why) "\t-"
                exit
            }
            time = sprintf("%.3f ms at n = %s, the reference solution %s", ms, n,
                           mine == "" ? "not timed" : sprintf("%.3f ms", mine))
            if (mine != "" && before != "" && mine > 0 && before / mine >= 4 && ms > sqrt(before * mine))
                printf "slow\tits time on the GPU, %s, is over %.3f ms, halfway (geometrically) between " \
                       "that and the reference'"'"'s stage before, %.3f ms: what this stage adds does not " \
                       "show in its time, as its idea would; flagged for review\t%s\n", time,
                       sqrt(before * mine), before, time
            else
                print "ok\t-\t" time
        }' "$ref" "$3"
}

grade_one() { # SUBMISSION: every lab, one after another
    local sub=${1%/} base name shown
    base=${sub##*/} # as it is: basename's $(...) would drop a trailing newline
    name=$(out_name "$base") shown=$(shown_name "$base")
    rm -rf "${out:?}/$name" && mkdir -p "$out/$name" && printf '%s\n' "$shown" > "$out/$name/.name" &&
        printf '%s\n' "$name" >> "$out/.graded"
    if [ -n "${TIER1:-}" ]; then # tier 2: what tier 1 graded whole, nothing else
        [ -f "$TIER1/$name/.done" ] || { echo "grade: $shown: not graded in tier 1"; return; }
        local gpu_left=$(( ${GPU_SECONDS:-300} * 1000 ))
        for lab in "${labs[@]}"; do gpu_lab "$name" "$lab"; done
    else
        for lab in "${labs[@]}"; do grade_lab "$sub" "$name" "$lab"; done
    fi
    : > "$out/$name/.done" # every lab graded: what a grading through Slurm counts
    echo "grade: $shown: $(score_awk '{ t += $col["points"]; m += $col["max"] } END { print t " of " m }' \
        "$out/$name"/*/score.tsv)"
}
# Tier 2 on a GPU: the reference solution's stages timed first, on this GPU,
# at the size, block and seed the submissions' are timed at (time_size).
if [ -n "${TIER1:-}" ] && [ "$EMU" != 1 ]; then
    for lab in "${labs[@]}"; do
        [ -x "$build/gpu/solutions/$lab/run" ] &&
            "$build/gpu/solutions/$lab/run" time=all n="$(time_size "$lab")" block=256 seed="$seed" \
                > "$works/reference-$lab.tsv" 2>> "$out/judges.log"
    done
fi
export -f grade_one grade_lab score_stage score_all splice_submission build_submission build_in_sandbox \
    run_stages score_stages build_for_gpu gpu_lab time_size time_verdict sandbox_stage region_stage \
    blank_stages judge judged stage_ids cases points technique_share technique_of first_wrong frame cap \
    out_name shown_name score_header score_row score_awk
export build out here submissions seed weights pristine works judged_on score_columns
export LABS_LIST="${labs[*]}"
if [ -z "$(find "$submissions" -mindepth 1 -maxdepth 1 -type d -print -quit)" ]; then
    echo "grade: $submissions is empty, so nobody was graded; the judges and the pristine tree are ready"
    exit 0
fi
# The class: every folder, or those SUBMISSION_LIST names (a file of folder
# names, each ended by a NUL: a Slurm task's slice, grading/grade-slurm.sh).
class() {
    if [ -n "${SUBMISSION_LIST:-}" ]; then
        local base
        while IFS= read -r -d '' base; do
            [ -d "$submissions/$base" ] && printf '%s\0' "$submissions/$base"
        done < "$SUBMISSION_LIST"
    else
        find "$submissions" -mindepth 1 -maxdepth 1 -type d -print0 | sort -z
    fi
}
# shellcheck disable=SC2016 # the child shell expands them
class | xargs -0 -r -P "$jobs" -I{} bash -c 'labs=($LABS_LIST); grade_one "$1"' _ {} 9>&-
grading/grade-report.sh "$out" "${labs[@]}"
