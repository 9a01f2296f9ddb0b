#!/usr/bin/env bash
# Slowdown of a lock-heavy target under lumen's sync tracing and under
# gprofng's, in one run.
#
#   plugins/sync/bench/sync_overhead.sh [BUILD_DIR]     (default build/ in this tree)
#   ROUNDS=N (default 5)  THREADS=N (default 2)  MILLIONS=M (default 4)  WORK=W (default 50)
#
# The target (sync_bench_target contended THREADS MILLIONS WORK) runs
# THREADS threads taking one mutex MILLIONS x 1e6 times in all, and prints
# the time of its own loops (CLOCK_MONOTONIC, start-up excluded). Each round
# runs every configuration once, in a rotating order; a configuration's ratio
# is the median over rounds of its loop time (and of its whole wall time)
# divided by the plain run's in the same round. The events each tracer
# recorded are reported beside. It reports figures and never judges them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-5}
threads=${THREADS:-2}
millions=${MILLIONS:-4}
work_steps=${WORK:-50}
collect=$build/bin/collect
er_print=$build/bin/er_print
target=$build/plugins/sync/bench/sync_bench_target
harness_begin sync_overhead
harness_require "$build" "$collect" "$er_print" "$target"

configs=(alone lumen_on)
declare -A label=([alone]="target alone" [lumen_on]="lumen collect -s on" [gprofng_on]="gprofng collect app -s on")
if command -v gprofng >/dev/null 2>&1; then configs+=(gprofng_on); else say "gprofng: not installed"; fi
args=(contended "$threads" "$millions" "$work_steps")

results=$work/results.tsv  # config round wall_s loop_s
: >"$results"
count=${#configs[@]}
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < count; ++k)); do
    config=$(harness_config "$r" "$k" "${configs[@]}")
    case $config in
      alone) cmd=("$target" "${args[@]}") ;;
      lumen_on) cmd=("$collect" -s on -d "$work" -o "lumen_on.$r.er" "$target" "${args[@]}") ;;
      gprofng_on) cmd=(gprofng collect app -s on -o "$work/gprofng_on.$r.er" "$target" "${args[@]}") ;;
    esac
    start=$(now)
    status=0
    "${cmd[@]}" </dev/null >"$work/$config.$r.out" 2>"$work/$config.$r.err" || status=$?
    end=$(now)
    loop=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$work/$config.$r.out" | tail -n 1)
    if [[ $status -ne 0 || -z $loop ]]; then say "round $r: ${label[$config]} failed (exit $status)"; continue; fi
    printf '%s\t%d\t%s\t%s\n' "$config" "$r" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')" "$loop" >>"$results"
    say "round $r: ${label[$config]}: loops ${loop} s"
  done
done

# Events recorded in the last round (after the timed runs).
events_lumen=$("$er_print" --format=csv -metrics e.syncn:name -functions "$work/lumen_on.$rounds.er" 2>/dev/null |
  awk -F, '$2 == "<Total>" { print $1; exit }' || true)
events_gprofng=""
if [[ " ${configs[*]} " == *" gprofng_on "* ]]; then
  events_gprofng=$(gprofng display text -metrics e.syncn:name -functions "$work/gprofng_on.$rounds.er" 2>/dev/null |
    awk '$NF == "<Total>" { print $1; exit }' || true)
fi

echo "# sync_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds"
echo "# target: sync_bench_target ${args[*]}"
awk -F'\t' -v order="${configs[*]}" -v labels="$(for c in "${configs[@]}"; do printf '%s\t' "${label[$c]}"; done)" "$harness_awk_median"'
  { wall[$1, $2] = $3; loop[$1, $2] = $4; loops[$1] = loops[$1] " " $4; runs[$1]++ }
  END {
    n = split(order, name, " "); split(labels, title, "\t")
    for (key in loop) { split(key, part, SUBSEP)
      if ((("alone", part[2]) in loop) && loop["alone", part[2]] > 0) {
        lr[part[1]] = lr[part[1]] " " (loop[key] / loop["alone", part[2]])
        wr[part[1]] = wr[part[1]] " " (wall[key] / wall["alone", part[2]]) } }
    printf "%-28s %4s %12s %11s %11s\n", "configuration", "runs", "median loop s", "loop ratio", "wall ratio"
    for (i = 1; i <= n; ++i) { c = name[i]; m = median(loops[c]); a = median(lr[c]); b = median(wr[c])
      printf "%-28s %4d %12s %11s %11s\n", title[i], runs[c] + 0, (m == "" ? "-" : sprintf("%.3f", m)),
        (a == "" ? "-" : sprintf("%.3f", a)), (b == "" ? "-" : sprintf("%.3f", b)) }
  }' "$results"
echo "# sync events recorded (last round): lumen ${events_lumen:--}, gprofng ${events_gprofng:--}"
