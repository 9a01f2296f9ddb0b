#!/usr/bin/env bash
# The off-CPU sampler's cost against the number of mostly sleeping threads:
# the CPU its collector threads use per second of the run, and the slowdown
# of a CPU-bound thread beside them.
#
#   plugins/states/bench/states_overhead.sh [BUILD_DIR]     (default /work/main/build)
#   ROUNDS=N (default 3)  THREADS="10 100 1000"  INTERVALS="10ms 1ms"  WORK=N (default 300000000)
#   NAP_MS=N (default 50): each sleeping thread wakes every N ms; 0: idle
#   (blocked on a condition variable for the whole run)
#
# For each thread count, each round runs the target alone, under
# `collect -p INTERVAL -states off` (clock profiling only) and under
# `collect -p INTERVAL` (with the states), in a rotating order. Reported:
# the medians of the CPU-bound thread's time and of the collector threads'
# CPU per second (the -S sample thread's too, which is idle at -S off).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
build=${1:-/work/main/build}
rounds=${ROUNDS:-3}
work_iterations=${WORK:-300000000}
nap_ms=${NAP_MS:-50}
collect=$build/bin/collect
er_print=$build/bin/er_print
target=$build/plugins/states/bench/states_bench_target
harness_begin states_overhead
harness_require "$build" "$collect" "$er_print" "$target"

results=$work/results.tsv  # threads interval config round work_s collector_cpu_per_s
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
        printf '%s\t%s\t%s\t%d\t%s\t%s\n' "$threads" "$interval" "$config" "$r" "$w" "$c" >>"$results"
        say "$name: work ${w} s, collector CPU ${c} s/s"
        rm -rf "$work/$name.er"
      done
    done
  done
done

echo "# states_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds  work=$work_iterations  nap_ms=$nap_ms"
awk -F'\t' "$harness_awk_median"'
  { key = $1 "\t" $2; keys[key] = 1; work[key, $3] = work[key, $3] " " $5; cpu[key, $3] = cpu[key, $3] " " $6 }
  END {
    printf "%-8s %-9s %12s %14s %16s %18s %18s\n", "threads", "interval", "alone work s", "-states off s", "with states s",
      "collector CPU off", "collector CPU on"
    for (key in keys) { split(key, part, "\t")
      printf "%-8s %-9s %12s %14s %16s %17.2f%% %17.2f%%\n", part[1], part[2], median(work[key, "alone"]),
        median(work[key, "clock_only"]), median(work[key, "clock_states"]),
        100 * median(cpu[key, "clock_only"]), 100 * median(cpu[key, "clock_states"]) }
  }' "$results"
