#!/usr/bin/env bash
# What the kernel's frames cost clock profiling (collect -k on against
# -k off), next to perf and gprofng sampling the same program at the same
# rate: tools/overhead/cpu_target.c (CPU-bound, about 3 s) and a
# system-call load (dd from /dev/zero, 4 KiB blocks).
#
#   bench/clock/kernel_frames_overhead.sh [BUILD_DIR]   (default build/ in this tree)
#   ROUNDS=N (default 3); as root, or where perf_event_paranoid allows
#   kernel call chains (else -k on records what -k off does)
#
# Each round runs every configuration once in a rotating order. For each
# workload and configuration: the median over rounds of the wall time and
# of the user+system CPU time of the whole command tree (the profiler's own
# work included), each as a ratio to the plain run of the same round.
# collect runs as `collect -p 1 -A off`; perf as
# `perf record -g -e task-clock -c 1000000` (the program's CPU time, user
# and kernel chains); gprofng as `gprofng collect app -p hi` (1 ms, user
# stacks only). It reports figures and never judges them.
set -euo pipefail

tree=$(cd "$(dirname "$0")/../.." && pwd)
source "$tree/tools/overhead/harness.sh"
build=${1:-$tree/build}
rounds=${ROUNDS:-3}
collect=$build/bin/collect
harness_begin kernel_frames_overhead
harness_require "$build" "$collect"
gcc -O2 -g -o "$work/cpu_target" "$tree/tools/overhead/cpu_target.c"

declare -A workload=(
  [cpu]="$work/cpu_target"
  [syscalls]="$(command -v dd) if=/dev/zero of=/dev/null bs=4k count=3000000 status=none"
)
configs=(plain collect_k_off collect_k_on)
command -v perf >/dev/null && configs+=(perf)
command -v gprofng >/dev/null && configs+=(gprofng)

run_config() {  # config workload-command -> "wall cpu"
  local config=$1; shift
  local prefix=()
  case $config in
    collect_k_off) prefix=("$collect" -p 1 -k off -A off -o c.er -d "$work") ;;
    collect_k_on) prefix=("$collect" -p 1 -k on -A off -o c.er -d "$work") ;;
    perf) prefix=(perf record -q -g -e task-clock -c 1000000 -o "$work/perf.data" --) ;;
    gprofng) prefix=(gprofng collect app -p hi -O "$work/g.er") ;;
  esac
  rm -rf "$work/c.er" "$work/g.er" "$work/perf.data"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "${prefix[@]}" "$@" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  read -r wall user system <"$work/time"
  echo "$wall $(echo "$user + $system" | bc -l)"
}

harness_ratio_rounds "$rounds" cpu syscalls
