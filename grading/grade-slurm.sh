#!/usr/bin/env bash
# grade-slurm.sh BUILD SUBMISSIONS OUT LAB...: `make grade SCHEDULER=slurm`.
# The same grading as grading/grade.sh, spread over a Slurm job array: the
# class is cut into TASKS slices, each array task grades its slice with
# grade.sh (same sandbox, same judges, same seed), and a last job that
# depends on the array gathers every graded submission into OUT and writes
# the class's reports (grades.csv, summary.md, junit.xml, each results.json)
# as grade.sh does. OUT and this checkout must be on a file system the
# nodes share.
#
# A task that dies, is cancelled or loses its node leaves its submissions
# "not graded" in every report, never a silent 0. Run again, the command
# refuses to grade OUT over: RESUME=1 grades the ones not graded (and any
# new folder), REGRADE=1 all of them. While the jobs run it prints how many
# submissions are graded, running and pending; the jobs go on if it is
# stopped (WAIT=0 does not wait at all).
#
# Where the jobs go: PARTITION=, ACCOUNT=, TASKS= (default: one per 4
# submissions, at most 64), and SLURM_SITE=file, whose lines are sbatch
# options for every job (--qos=..., --time=..., --constraint=...; # comments).
# The judges and the pristine tree are built here first, once.
#
# Two tiers: with GPU_PARTITION=, the array above grades under the CPU
# emulation (tier 1), and builds, for GPUs of GPU_ARCH (default 90, an
# H100), each lab where a stage scored. A second array, on GPU_PARTITION
# with --gres=gpu:1, grades again on the GPU the stages that scored (tier
# 2, grade.sh TIER1=): its task k starts when tier-1 task k has ended well
# (aftercorr), grades GPU_JOBS submissions at once on its GPU (default 4),
# and gives each GPU_SECONDS (default 300) for all its stages. The reports
# say where each stage was judged. (GPU_ARCH=emu, for tests on a machine
# without a GPU, runs tier 2 on the emulated build, and says so.)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=grading/names.sh
. "$here/grading/names.sh"

# ---- in a job -------------------------------------------------------------
# --task STATE RUN: array task $SLURM_ARRAY_TASK_ID of run RUN grades its slice.
# --gather STATE: the last job: OUT's submissions and reports.
# --gpu-task STATE RUN: tier 2 of the same slice, on the GPU.
if [ "${1:-}" = --task ] || [ "${1:-}" = --gpu-task ]; then
    state=$2 run=$3
    task=${SLURM_ARRAY_TASK_ID:?not in a Slurm array task}
    # shellcheck disable=SC1091 # written below, at submission
    . "$state/settings"
    cd "$here" || exit 1
    export SEED=$seed SUBMISSION_LIST=$state/$run/slice-$task PREPARED=1 # the judges: below, at submission
    if [ "$1" = --task ]; then
        EMU=$EMU GPU_ARCH=$gpu_arch grading/grade.sh "$build" "$submissions" "$state/$run/task-$task" "${labs[@]}"
    else
        EMU=$([ "$gpu_arch" = emu ] && echo 1 || echo 0) JOBS=$gpu_jobs TIER1=$state/$run/task-$task \
            grading/grade.sh "$build" "$submissions" "$state/$run/gpu-$task" "${labs[@]}"
    fi
    exit
fi
gather() { # STATE: move what the tasks graded into OUT, mark the rest, report
    local state=$1 base name where last_tier=task
    # shellcheck disable=SC1091 # written below, at submission
    . "$state/settings"
    [ -n "$gpu_partition" ] && last_tier=gpu
    : > "$out/.graded"
    while IFS= read -r -d '' base; do
        name=$(out_name "$base")
        # the newest run's grading of it, if it finished
        where=$(find "$state" -mindepth 4 -maxdepth 4 -path "$state/run-*/$last_tier-*/$name/.done" 2> /dev/null |
            sort -V | tail -n 1)
        if [ -n "$where" ]; then
            rm -rf "${out:?}/$name" && mv "$(dirname "$where")" "$out/$name"
        elif [ ! -f "$out/$name/.done" ]; then
            rm -rf "${out:?}/$name" && mkdir -p "$out/$name" &&
                printf '%s\n' "$(shown_name "$base")" > "$out/$name/.name" &&
                printf 'its Slurm task ended before it was graded (%s); RESUME=1 grades it\n' \
                    "$(tail -n 1 "$state/jobs")" > "$out/$name/.not-graded"
        fi
        printf '%s\n' "$name" >> "$out/.graded"
    done < "$state/class"
    { cat "$state/prepare/.how" 2> /dev/null
      [ -n "$gpu_partition" ] && printf 'Tier 2: the stages that scored under the emulation were judged again %s.\n' \
          "$(sed -n 's/.*kernels run \([^.:;]*\).*/\1/p' "$state"/run-*/gpu-*/.how 2> /dev/null | tail -n 1)"
      printf 'Through Slurm: %s.\n' "$(paste -s -d';' "$state/jobs" | sed 's/;/; /g')"
    } > "$out/.how"
    find "$state" -name gpu.run -delete # tier 1's builds for the GPU, used
    "$here/grading/grade-report.sh" "$out" "${labs[@]}"
}
if [ "${1:-}" = --gather ]; then
    gather "$2"
    exit
fi

# ---- on the machine that submits ------------------------------------------
build=$1 submissions=$2 out=$3
shift 3
labs=("$@")
for tool in sbatch squeue scancel; do
    command -v "$tool" > /dev/null ||
        { echo "grade: SCHEDULER=slurm needs Slurm's $tool here (slurm-client); make deps-slurm installs it"; exit 1; }
done
[ -d "$submissions" ] || { echo "grade: SUBMISSIONS=$submissions is not a folder"; exit 1; }
submissions=$(cd "$submissions" && pwd -P) || exit 1
mkdir -p "$out" && chmod 700 "$out" && out=$(cd "$out" && pwd) || exit 1
state=$out/.slurm
mkdir -p "$state" || exit 1
exec 9> "$state/lock"
flock -n 9 || { echo "grade: another make grade SCHEDULER=slurm is submitting to $out"; exit 1; }

# The class, in folder-name order, NUL-ended; and which are still to grade.
find "$submissions" -mindepth 1 -maxdepth 1 -type d -printf '%f\0' | sort -z > "$state/class.new"
count() { tr -cd '\0' < "$1" | wc -c; }
if [ -f "$state/settings" ]; then
    graded=0 left=0
    while IFS= read -r -d '' base; do
        if [ -f "$out/$(out_name "$base")/.done" ]; then graded=$((graded + 1)); else left=$((left + 1)); fi
    done < "$state/class.new"
    if [ "${REGRADE:-}" = 1 ]; then
        rm -rf "$state"/run-* && find "$out" -mindepth 2 -maxdepth 2 -name .done -delete
    elif [ "${RESUME:-}" != 1 ]; then
        echo "grade: $out already holds this grading through Slurm ($graded graded, $left not):"
        echo "       RESUME=1 grades the $left not graded, REGRADE=1 all of them, or give another OUT="
        exit 1
    fi
fi
mv "$state/class.new" "$state/class"
: > "$state/todo"
while IFS= read -r -d '' base; do
    [ -f "$out/$(out_name "$base")/.done" ] || printf '%s\0' "$base" >> "$state/todo"
done < "$state/class"
n=$(count "$state/todo")
[ "$n" -gt 0 ] || { echo "grade: every submission in $out is graded; REGRADE=1 grades them again"; exit 0; }

# Two tiers: tier 1 under the emulation (make sets EMU=1 for GPU_PARTITION=).
# GPU_JOBS: 4 at once on an H100 keep every stage far within its limits
# (results/emulation/grading.md), at three times the pace of one.
EMU=${EMU:-0} gpu_arch="" gpu_jobs=${GPU_JOBS:-4}
[[ ${JOBS_PER_TASK:-1} =~ ^[1-9][0-9]*$ ]] || { echo "grade: JOBS_PER_TASK=$JOBS_PER_TASK is no number"; exit 1; }
if [ -n "${GPU_PARTITION:-}" ]; then
    [ "$EMU" = 1 ] || { echo "grade: GPU_PARTITION= grades tier 1 under the emulation: EMU=1"; exit 1; }
    gpu_arch=${GPU_ARCH:-90}
    [[ $gpu_arch =~ ^([1-9][0-9]*[a-z]?|emu)$ ]] ||
        { echo "grade: GPU_ARCH=$gpu_arch is no compute capability (90 on an H100, 80 on an A100)"; exit 1; }
    for v in GPU_SECONDS="${GPU_SECONDS:-300}" GPU_JOBS="$gpu_jobs"; do
        [[ ${v#*=} =~ ^[1-9][0-9]*$ ]] || { echo "grade: $v is no number"; exit 1; }
    done
fi

# One seed for the class (kept, so that a resumed grading judges alike).
if [ ! -f "$state/settings" ] || [ "${REGRADE:-}" = 1 ]; then
    seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
else
    # shellcheck disable=SC1091 # written below
    seed=$(. "$state/settings" && echo "$seed")
fi
{
    printf 'build=%q submissions=%q out=%q seed=%q EMU=%q\n' "$build" "$submissions" "$out" "$seed" "$EMU"
    printf 'gpu_partition=%q gpu_arch=%q gpu_jobs=%q\n' "${GPU_PARTITION:-}" "$gpu_arch" "$gpu_jobs"
    printf 'labs=(%s)\n' "$(printf '%q ' "${labs[@]}")"
    printf 'export WEIGHTS=%q GRADE_STAGE_SECONDS=%q GRADE_BUILD_SECONDS=%q\n' \
        "$(realpath "${WEIGHTS:-grading/weights.txt}")" "${GRADE_STAGE_SECONDS:-120}" "${GRADE_BUILD_SECONDS:-600}"
    printf 'export SANDBOX_MEM_MB=%q SANDBOX_DISK_MB=%q SANDBOX=%q JOBS=%q\n' "${SANDBOX_MEM_MB:-2048}" \
        "${SANDBOX_DISK_MB:-1024}" "${SANDBOX:-}" "${JOBS_PER_TASK:-1}"
    printf 'export GPU_SECONDS=%q\n' "${GPU_SECONDS:-300}"
} > "$state/settings"

# The judges and the pristine tree, once, here (grade.sh with no one to grade);
# its .how says where the kernels run and the sandbox, for the reports.
mkdir -p "$state/empty"
prepared=$(SEED=$seed GPU_ARCH=$gpu_arch grading/grade.sh "$build" "$state/empty" "$state/prepare" "${labs[@]}" 2>&1) ||
    { echo "$prepared"; exit 1; }
grep -v 'so nobody was graded' <<< "$prepared"

# The slices: submission k of the todo list goes to task k mod TASKS.
tasks=${TASKS:-$(( (n + 3) / 4 ))}
[ "$tasks" -le 64 ] || [ -n "${TASKS:-}" ] || tasks=64
[ "$tasks" -ge 1 ] && [ "$tasks" -le "$n" ] || tasks=$n
run=run-$(( $(find "$state" -mindepth 1 -maxdepth 1 -name 'run-*' | wc -l) + 1 ))
mkdir -p "$state/$run/logs"
k=0
while IFS= read -r -d '' base; do
    printf '%s\0' "$base" >> "$state/$run/slice-$((k % tasks + 1))"
    k=$((k + 1))
done < "$state/todo"

site=()
if [ -n "${SLURM_SITE:-}" ]; then
    [ -f "$SLURM_SITE" ] || { echo "grade: SLURM_SITE=$SLURM_SITE is not a file"; exit 1; }
    mapfile -t site < <(sed -e 's/#.*//' -e 's/^[ \t]*//' -e 's/[ \t]*$//' -e '/^$/d' "$SLURM_SITE")
fi
where=(${PARTITION:+--partition="$PARTITION"} ${ACCOUNT:+--account="$ACCOUNT"} "${site[@]}")
gpus=""
# a CPU for each grading a task runs at once (the site file may ask more)
array=$(sbatch --parsable --job-name=grade --array=1-"$tasks" --chdir="$here" \
    --output="$state/$run/logs/task-%a.log" --cpus-per-task="${JOBS_PER_TASK:-1}" "${where[@]}" \
    --wrap="$(printf '%q ' "$here/grading/grade-slurm.sh" --task "$state" "$run")") ||
    { echo "grade: sbatch refused the job array (its message is above)"; exit 1; }
array=${array%%;*}
ends=$array tiers="job array $array of $tasks task$([ "$tasks" = 1 ] || echo s)"
if [ -n "${GPU_PARTITION:-}" ]; then
    # Tier 2: task k once tier-1 task k has ended well, else never. Its time:
    # its slice's GPU budgets, at GPU_JOBS at once, and 10 minutes to judge.
    longest=$(for f in "$state/$run"/slice-*; do count "$f"; echo; done | sort -n | tail -n 1)
    minutes=$(( (longest * ${GPU_SECONDS:-300} / gpu_jobs + 59) / 60 + 10 ))
    gpus=$(sbatch --parsable --job-name=grade-gpu --array=1-"$tasks" --chdir="$here" \
        --output="$state/$run/logs/gpu-%a.log" ${ACCOUNT:+--account="$ACCOUNT"} \
        --dependency=aftercorr:"$array" --kill-on-invalid-dep=yes --time="$minutes" --cpus-per-task="$gpu_jobs" \
        "${site[@]}" --partition="$GPU_PARTITION" --gres=gpu:1 \
        --wrap="$(printf '%q ' "$here/grading/grade-slurm.sh" --gpu-task "$state" "$run")") ||
        { scancel "$array"; echo "grade: sbatch refused the GPU array (its message is above); the first is cancelled"; exit 1; }
    ends=${gpus%%;*} tiers+=" on the CPU, then array $ends on GPUs of $GPU_PARTITION"
fi
last=$(sbatch --parsable --job-name=grade-gather --dependency=afterany:"$ends" --kill-on-invalid-dep=no \
    --chdir="$here" --output="$state/$run/logs/gather.log" "${where[@]}" \
    --wrap="$(printf '%q ' "$here/grading/grade-slurm.sh" --gather "$state")") ||
    { scancel "$array" ${gpus:+"${gpus%%;*}"}; echo "grade: sbatch refused the gathering job; the arrays are cancelled"; exit 1; }
last=${last%%;*}
printf '%s: %s, gathered by job %s\n' "$run" "$tiers" "$last" >> "$state/jobs"
echo "grade: $n submissions in $tasks Slurm tasks: $tiers, gathered into $out by job $last (seed $seed)"
[ "${WAIT:-1}" = 1 ] || exit 0

# Progress until the gathering job ends: graded / running / pending of n.
# graded: in its task's folder, or already gathered into OUT
todo_names=()
while IFS= read -r -d '' base; do todo_names+=("$(out_name "$base")"); done < "$state/todo"
done_in_run() {
    local name k=0
    for name in "${todo_names[@]}"; do
        [ -f "$out/$name/.done" ] || compgen -G "$state/$run/$last_tier-*/$name/.done" > /dev/null && k=$((k + 1))
    done
    echo "$k"
}
last_tier=$([ -n "${GPU_PARTITION:-}" ] && echo gpu || echo task)
# the slices being graded, in either tier
running_tasks() { squeue -h -j "$array${gpus:+,${gpus%%;*}}" -t RUNNING -o %K 2> /dev/null | sort -u; }
last_line=""
progress() {
    local graded running=0 t line
    graded=$(done_in_run)
    for t in $(running_tasks); do running=$((running + $(count "$state/$run/slice-$t" 2> /dev/null || echo 0))); done
    running=$((running > n - graded ? n - graded : running))
    line="grade: graded $graded, running $running, pending $((n - graded - running)) of $n"
    [ "$line" = "$last_line" ] || { echo "$line"; last_line=$line; }
}
while squeue -h -j "$last" 2> /dev/null | grep -q .; do
    progress
    sleep 2
done
progress
not=$(find "$out" -mindepth 2 -maxdepth 2 -name .not-graded | wc -l)
if [ ! -f "$out/grades.csv" ] || [ "$out/grades.csv" -ot "$state/$run" ]; then
    echo "grade: the gathering job $last wrote no reports: see $state/$run/logs/gather.log"
    exit 1
fi
echo "grade: $((n - not)) of $n graded through Slurm; the class's grades are in $out (summary.md, grades.csv)"
[ "$not" -eq 0 ] || { echo "grade: $not not graded (their tasks ended first): RESUME=1 grades them"; exit 1; }
