#!/usr/bin/env bash
# Overhead of task-clock overflow profiling (collect -h task-clock,N) next to
# clock profiling at the same rate (collect -p), in one run, on the CPU-bound
# target of tools/overhead (cpu_target.c, about 3 s single-threaded).
#
#   plugins/hwc/bench/hwc_overhead.sh [BUILD_DIR]    (default build/ in this tree)
#   ROUNDS=N (default 5)  CPU_TARGET_SCALE=S (default 1)
#
# Each round runs every configuration once, in a rotating order; a ratio is
# the median over rounds of the configuration's time divided by the plain
# run's in the same round: wall time around the whole command, and the
# target's own CPU time (CLOCK_PROCESS_CPUTIME_ID at exit, handler time
# included). "reported" is the CPU time the profile attributes (<Total>
# e.user for -p, e.task-clock for -h) over the target's own. It reports
# figures and never judges them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-5}
collect=$build/bin/collect
er_print=$build/bin/er_print
harness_begin hwc_overhead
harness_require "$build" "$collect" "$er_print"
target=$work/cpu_target
gcc -O2 -g -o "$target" "$here/../../../tools/overhead/cpu_target.c"

configs=(alone p_10ms h_10ms p_1ms h_1ms)
declare -A label=([alone]="target alone" [p_10ms]="collect -p 10" [h_10ms]="collect -h task-clock,10000000"
  [p_1ms]="collect -p 1" [h_1ms]="collect -h task-clock,1000000")
declare -A metric=([p_10ms]=e.user [h_10ms]=e.task-clock [p_1ms]=e.user [h_1ms]=e.task-clock)
results=$work/results.tsv  # config round wall cpu
: >"$results"
count=${#configs[@]}
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < count; ++k)); do
    config=$(harness_config "$r" "$k" "${configs[@]}")
    case $config in
      alone) cmd=("$target") ;;
      p_10ms) cmd=("$collect" -p 10 -d "$work" -o "$config.$r.er" "$target") ;;
      h_10ms) cmd=("$collect" -p off -h task-clock,10000000 -d "$work" -o "$config.$r.er" "$target") ;;
      p_1ms) cmd=("$collect" -p 1 -d "$work" -o "$config.$r.er" "$target") ;;
      h_1ms) cmd=("$collect" -p off -h task-clock,1000000 -d "$work" -o "$config.$r.er" "$target") ;;
    esac
    start=$(now)
    status=0
    "${cmd[@]}" </dev/null >"$work/$config.$r.out" 2>"$work/$config.$r.err" || status=$?
    end=$(now)
    cpu=$(sed -n 's/^cpu_target: cpu_seconds=\([0-9.]*\).*/\1/p' "$work/$config.$r.err" | tail -n 1)
    if [[ $status -ne 0 || -z $cpu ]]; then say "round $r: ${label[$config]} failed (exit $status)"; continue; fi
    reported=-
    if [[ $config != alone ]]; then
      reported=$("$er_print" --format=csv -metrics "${metric[$config]}:name" -functions "$work/$config.$r.er" 2>/dev/null |
        awk -F, '$2 == "<Total>" { print $1; exit }' || true)
    fi
    printf '%s\t%d\t%s\t%s\t%s\n' "$config" "$r" "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')" \
      "$cpu" "${reported:--}" >>"$results"
    say "round $r: ${label[$config]}: cpu ${cpu} s"
  done
done

echo "# hwc_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds"
awk -F'\t' -v order="${configs[*]}" -v labels="$(for c in "${configs[@]}"; do printf '%s\t' "${label[$c]}"; done)" "$harness_awk_median"'
  { wall[$1, $2] = $3; cpu[$1, $2] = $4; runs[$1]++; if ($5 != "-" && $4 > 0) rep[$1] = rep[$1] " " ($5 / $4) }
  END {
    n = split(order, name, " "); split(labels, title, "\t")
    for (key in wall) { split(key, part, SUBSEP)
      if (("alone", part[2]) in wall) {
        wr[part[1]] = wr[part[1]] " " (wall[key] / wall["alone", part[2]])
        cr[part[1]] = cr[part[1]] " " (cpu[key] / cpu["alone", part[2]]) } }
    printf "%-34s %4s %11s %10s %14s\n", "configuration", "runs", "wall ratio", "CPU ratio", "reported/true"
    for (i = 1; i <= n; ++i) { c = name[i]; a = median(wr[c]); b = median(cr[c]); f = median(rep[c])
      printf "%-34s %4d %11s %10s %14s\n", title[i], runs[c] + 0, (a == "" ? "-" : sprintf("%.3f", a)),
        (b == "" ? "-" : sprintf("%.3f", b)), (f == "" ? "-" : sprintf("%.3f", f)) }
  }' "$results"
