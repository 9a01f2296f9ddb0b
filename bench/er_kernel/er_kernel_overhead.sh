#!/usr/bin/env bash
# er_kernel's cost next to perf's, profiling every CPU at the same rate while
# a fixed amount of work runs: tools/overhead/cpu_target.c (CPU-bound, about
# 3 s) and a system-call load (dd from /dev/zero, 4 KiB blocks).
#
#   bench/er_kernel/er_kernel_overhead.sh [BUILD_DIR]   (default build/ in this tree)
#   ROUNDS=N (default 3); run as root (every CPU is sampled)
#
# Each round runs every configuration once in a rotating order. For each
# workload and configuration: the median over rounds of the wall time and
# of the user+system CPU time of the whole command tree (the profiler's own
# work included), each as a ratio to the plain run of the same round.
# perf runs as `perf record -a -g -e cpu-clock -c PERIOD_NS`, er_kernel as
# `er_kernel -p MS -A off`: the same event at the same period. It reports
# figures and never judges them.
set -euo pipefail

tree=$(cd "$(dirname "$0")/../.." && pwd)
source "$tree/tools/overhead/harness.sh"
build=${1:-$tree/build}
rounds=${ROUNDS:-3}
er_kernel=$build/bin/er_kernel
harness_begin er_kernel_overhead
harness_require "$build" "$er_kernel"
command -v perf >/dev/null || { say "perf not found"; exit 2; }
gcc -O2 -g -o "$work/cpu_target" "$tree/tools/overhead/cpu_target.c"

declare -A workload=(
  [cpu]="$work/cpu_target"
  [syscalls]="dd if=/dev/zero of=/dev/null bs=4k count=6000000 status=none"
)
configs=(plain perf_10ms er_kernel_10ms perf_1ms er_kernel_1ms)

run_config() {  # config workload-command -> "wall cpu"
  local config=$1; shift
  local prefix=()
  case $config in
    perf_10ms) prefix=(perf record -q -a -g -e cpu-clock -c 10000000 -o "$work/perf.data" --) ;;
    perf_1ms) prefix=(perf record -q -a -g -e cpu-clock -c 1000000 -o "$work/perf.data" --) ;;
    er_kernel_10ms) prefix=("$er_kernel" -p 10 -A off -o k.er -d "$work" --) ;;
    er_kernel_1ms) prefix=("$er_kernel" -p 1 -A off -o k.er -d "$work" --) ;;
  esac
  rm -rf "$work/k.er" "$work/perf.data"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "${prefix[@]}" "$@" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  read -r wall user system <"$work/time"
  echo "$wall $(echo "$user + $system" | bc -l)"
}

harness_ratio_rounds "$rounds" cpu syscalls
