#!/usr/bin/env bash
# Slowdown of an EPCC-style OpenMP region loop and task-heavy loop under
# clock profiling with and without OpenMP tracing, under GCC's libgomp
# (interposition) and, where it was built, LLVM's libomp (the OMPT tool),
# in one run.
#
#   plugins/omp/bench/omp_overhead.sh [BUILD_DIR]     (default build/ in this tree)
#   ROUNDS=N (default 5)  REGIONS=N (default 100000)  THREADS=N (default 2)  WORK_US=U (default 20)
#   TASKS=N (default 100000)
#
# The target runs REGIONS parallel regions of about WORK_US µs on THREADS
# threads, then TASKS explicit tasks of about WORK_US µs created by one
# thread of a team of THREADS, and prints each loop's time. Each round runs
# every configuration once, in a rotating order; a configuration's ratio is
# the median over rounds of its loop time divided by the plain run's in the
# same round, for each loop.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-5}
args=("${REGIONS:-100000}" "${THREADS:-2}" "${WORK_US:-20}" "${TASKS:-100000}")
collect=$build/bin/collect
er_print=$build/bin/er_print
harness_begin omp_overhead
declare -A targets=([libgomp]=$build/plugins/omp/bench/omp_regions_bench
                    [libomp]=$build/plugins/omp/bench/omp_regions_bench_clang)
runtimes=(libgomp)
[[ -x ${targets[libomp]} ]] && runtimes+=(libomp)
harness_require "$build" "$collect" "$er_print" "${targets[libgomp]}"

configs=(alone clock_only clock_omp)
declare -A label=([alone]="target alone" [clock_only]="collect -p on -omp off" [clock_omp]="collect -p on (OpenMP on)")
echo "# omp_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds"
for runtime in "${runtimes[@]}"; do
target=${targets[$runtime]}
results=$work/results.$runtime.tsv  # config round loop_s (the regions' loop)
task_results=$work/task_results.$runtime.tsv  # config round loop_s (the tasks' loop)
: >"$results"
: >"$task_results"
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < ${#configs[@]}; ++k)); do
    config=$(harness_config "$r" "$k" "${configs[@]}")
    name=$runtime.$config.$r
    case $config in
      alone) cmd=("$target" "${args[@]}") ;;
      clock_only) cmd=("$collect" -p on -omp off -d "$work" -o "$name.er" "$target" "${args[@]}") ;;
      clock_omp) cmd=("$collect" -p on -d "$work" -o "$name.er" "$target" "${args[@]}") ;;
    esac
    "${cmd[@]}" </dev/null >"$work/$name.out" 2>"$work/$name.err" || { say "round $r: $runtime $config failed"; continue; }
    loop=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' "$work/$name.out" | tail -n 1)
    task_loop=$(sed -n 's/.* task_seconds=\([0-9.]*\).*/\1/p' "$work/$name.out" | tail -n 1)
    printf '%s\t%d\t%s\n' "$config" "$r" "$loop" >>"$results"
    printf '%s\t%d\t%s\n' "$config" "$r" "$task_loop" >>"$task_results"
    say "round $r: $runtime: ${label[$config]}: regions ${loop} s, tasks ${task_loop} s"
  done
done
regions=$("$er_print" --format=json -omp_preg "$work/$runtime.clock_omp.$rounds.er" 2>/dev/null |
  sed -n 's/.*"regions": \([0-9]*\).*/\1/p' | head -n 1)

tasks=$("$er_print" --format=json -omp_task "$work/$runtime.clock_omp.$rounds.er" 2>/dev/null |
  sed -n 's/.*"tasks": \([0-9]*\).*/\1/p' | head -n 1)
for loop in regions tasks; do
[[ $loop == regions ]] && file=$results || file=$task_results
echo "# $runtime: omp_regions_bench ${args[*]}: the $loop loop"
awk -F'\t' -v order="${configs[*]}" -v labels="$(for c in "${configs[@]}"; do printf '%s\t' "${label[$c]}"; done)" "$harness_awk_median"'
  { loop[$1, $2] = $3; loops[$1] = loops[$1] " " $3; runs[$1]++ }
  END {
    n = split(order, name, " "); split(labels, title, "\t")
    for (key in loop) { split(key, part, SUBSEP)
      if ((("alone", part[2]) in loop) && loop["alone", part[2]] > 0) lr[part[1]] = lr[part[1]] " " (loop[key] / loop["alone", part[2]])
      if ((("clock_only", part[2]) in loop) && loop["clock_only", part[2]] > 0) cr[part[1]] = cr[part[1]] " " (loop[key] / loop["clock_only", part[2]]) }
    printf "%-28s %4s %13s %12s %15s\n", "configuration", "runs", "median loop s", "vs alone", "vs -p on alone"
    for (i = 1; i <= n; ++i) { c = name[i]; m = median(loops[c]); a = median(lr[c]); b = median(cr[c])
      printf "%-28s %4d %13s %12s %15s\n", title[i], runs[c] + 0, (m == "" ? "-" : sprintf("%.3f", m)),
        (a == "" ? "-" : sprintf("%.3f", a)), (b == "" ? "-" : sprintf("%.3f", b)) }
  }' "$file"
done
echo "# $runtime: parallel regions recorded (last round): ${regions:--}; explicit tasks: ${tasks:--}"
done
