#!/usr/bin/env bash
# The off-CPU sampler's cost against the number of mostly sleeping threads:
# the CPU its collector threads use per second of the run, and the slowdown
# of a CPU-bound thread beside them.
#
#   plugins/states/bench/states_overhead.sh [BUILD_DIR]     (default build/ in this tree)
#   ROUNDS=N (default 3)  THREADS="10 100 1000"  INTERVALS="10ms 1ms"  WORK=N (default 300000000)
#   NAP_MS=N (default 50): each sleeping thread wakes every N ms; 0: idle
#   (blocked on a condition variable for the whole run)
#
# For each thread count, each round runs the target alone, under
# `collect -p INTERVAL -states off` (clock profiling only) and under
# `collect -p INTERVAL` (with the states), in a rotating order. Reported:
# the medians of the CPU-bound thread's time and of the collector threads'
# CPU per second (the -S sample thread's too, which is idle at -S off):
# over the whole run ("collector CPU"), in the steady state from 1 s after
# the sleepers began to the end ("steady"), and what the start cost on top
# of the steady rate, in ms of CPU ("start"; states_bench_target.c).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-3}
work_iterations=${WORK:-300000000}
nap_ms=${NAP_MS:-50}
collect=$build/bin/collect
er_print=$build/bin/er_print
target=$build/plugins/states/bench/states_bench_target
harness_begin states_overhead
harness_require "$build" "$collect" "$er_print" "$target"

results=$work/results.tsv  # threads interval config round work_s collector_cpu_per_s steady_cpu_per_s start_cpu_ms
: >"$results"
configs=(alone clock_only clock_states)
for interval in ${INTERVALS:-10ms 1ms}; do
  for threads in ${THREADS:-10 100 1000}; do
    for ((r = 1; r <= rounds; ++r)); do
      for ((k = 0; k < ${#configs[@]}; ++k)); do
        config=$(harness_config "$r" "$k" "${configs[@]}")
        name="$config.$threads.$interval.$r"
        case $config in
          alone) cmd=("$target" "$threads" "$work_iterations" "$nap_ms") ;;
          clock_only) cmd=("$collect" -S off -p "$interval" -states off -d "$work" -o "$name.er" "$target" "$threads" "$work_iterations" "$nap_ms") ;;
          clock_states) cmd=("$collect" -S off -p "$interval" -d "$work" -o "$name.er" "$target" "$threads" "$work_iterations" "$nap_ms") ;;
        esac
        "${cmd[@]}" </dev/null >"$work/$name.out" 2>"$work/$name.err" || { say "$name failed"; continue; }
        line=$(tail -n 1 "$work/$name.out")
        w=$(sed -n 's/.*work_seconds=\([0-9.]*\).*/\1/p' <<<"$line")
        c=$(sed -n 's/.*collector_cpu_per_second=\([0-9.]*\).*/\1/p' <<<"$line")
        s=$(sed -n 's/.*steady_cpu_per_second=\(-*[0-9.]*\).*/\1/p' <<<"$line")
        m=$(sed -n 's/.*start_cpu_ms=\(-*[0-9.]*\).*/\1/p' <<<"$line")
        printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n' "$threads" "$interval" "$config" "$r" "$w" "$c" "$s" "$m" >>"$results"
        say "$name: work ${w} s, collector CPU ${c} s/s, steady ${s} s/s, start ${m} ms"
        rm -rf "$work/$name.er"
      done
    done
  done
done

echo "# states_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds  work=$work_iterations  nap_ms=$nap_ms"
awk -F'\t' "$harness_awk_median"'
  { key = $1 "\t" $2; keys[key] = 1; work[key, $3] = work[key, $3] " " $5; cpu[key, $3] = cpu[key, $3] " " $6
    if ($7 >= 0) steady[key, $3] = steady[key, $3] " " $7
    if ($8 != "" && $7 >= 0) start[key, $3] = start[key, $3] " " $8 }
  function percent(list) { return list == "" ? "-" : sprintf("%.2f%%", 100 * median(list)) }
  function ms(list) { return list == "" ? "-" : sprintf("%.1f ms", median(list)) }
  END {
    printf "%-8s %-9s %12s %14s %16s %18s %18s %12s %12s %12s %12s\n", "threads", "interval", "alone work s",
      "-states off s", "with states s", "collector CPU off", "collector CPU on", "steady off", "steady on",
      "start off", "start on"
    for (key in keys) { split(key, part, "\t")
      printf "%-8s %-9s %12s %14s %16s %18s %18s %12s %12s %12s %12s\n", part[1], part[2], median(work[key, "alone"]),
        median(work[key, "clock_only"]), median(work[key, "clock_states"]),
        percent(cpu[key, "clock_only"]), percent(cpu[key, "clock_states"]),
        percent(steady[key, "clock_only"]), percent(steady[key, "clock_states"]),
        ms(start[key, "clock_only"]), ms(start[key, "clock_states"]) }
  }' "$results"
