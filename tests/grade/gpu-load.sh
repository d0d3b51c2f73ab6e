#!/usr/bin/env bash
# gpu-load.sh TIER1 NAME K...: how many tier-2 gradings one GPU bears at
# once (results/emulation/grading.md). TIER1 is a tier-1 OUT that graded submission
# NAME in two tiers' first (grade.sh GPU_ARCH=: its labs' gpu.run kept);
# for each K, K copies of it are graded in tier 2 together (JOBS=K), as a
# Slurm GPU task with GPU_JOBS=K does, and a line says how long that took,
# the slowest stage (each has GRADE_STAGE_SECONDS, default 120), a
# submission's GPU seconds (its budget, GPU_SECONDS, default 300), and how
# many stages that scored in tier 1 lost their points in tier 2: with an
# honest submission, any is a false alarm of the grader's own load.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=grading/score-tsv.sh
. grading/score-tsv.sh
tier1=$(cd "$1" && pwd) name=$2
shift 2
labs=$(find "$tier1/$name" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-load.XXXXXX") && chmod 700 "$work" || exit 1
trap 'rm -rf "$work"' EXIT
scored=$(score_awk '$col["points"] > 0' "$tier1/$name"/*/score.tsv | wc -l)
printf '| at once | wall | submissions a minute | slowest stage | GPU s a submission (most) | stages lost |\n|---|---|---|---|---|---|\n'
for k in "$@"; do
    rm -rf "$work/class" "$work/t1" "$work/out" && mkdir -p "$work/class" "$work/t1"
    for i in $(seq -w 1 "$k"); do
        mkdir "$work/class/s$i" && cp -al "$tier1/$name" "$work/t1/s$i" # hard links: no copy of the binaries
    done
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # the labs, a word each
    EMU=0 JOBS=$k TIER1=$work/t1 SEED=${SEED:-7} grading/grade.sh build/emu "$work/class" "$work/out" $labs \
        > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    wall=$(( ($(date +%s%N) - t0) / 1000000 ))
    # shellcheck disable=SC2016 # awk's own $
    score_awk -v k="$k" -v wall="$wall" -v scored="$scored" '
        { sub_ = FILENAME; sub(/\/[^\/]+\/score.tsv$/, "", sub_); points = $col["points"]; why = $col["why"] }
        match(why, /cases in [0-9.]+ s[)]$/) { t = substr(why, RSTART + 9, RLENGTH - 12) + 0
            if (t > slow) slow = t; gpu[sub_] += t }
        points > 0 && $col["judged"] == "GPU" { kept++ }
        points == 0 && $col["judged"] == "GPU" { print "lost: " $col["lab"] " " $col["stage"] ": " why > "/dev/stderr" }
        END { for (s in gpu) if (gpu[s] > most) most = gpu[s]
              printf "| %d | %.1f s | %.1f | %.1f s | %.1f s | %d |\n",
                     k, wall / 1000, k * 60000 / wall, slow, most, k * scored - kept }' "$work/out"/s*/*/score.tsv
done
