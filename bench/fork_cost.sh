#!/bin/bash
# What following descendants costs: a program that forks (or forks and
# execs) N children one after another, run plainly, under collect -F off and
# under collect -F on (every child a sub-experiment). Prints the median wall
# time of RUNS runs of each and the slowdown ratios. Measures and reports;
# never passes or fails.
#   bench/fork_cost.sh [BUILD_DIR] [N] [RUNS]
set -euo pipefail
build=${1:-build}
n=${2:-200}
runs=${3:-5}
target=$build/bin/fork_exec_target
collect=$build/bin/collect
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() {  # median wall seconds of "$@" over $runs runs
  local times=()
  for ((r = 0; r < runs; ++r)); do
    rm -rf "$work"/*.er
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s%N)
    times+=("$(( (t1 - t0) / 1000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)] / 1e6}'
}

printf '%-6s %10s %14s %14s %10s %10s %16s\n' mode plain_s "collect_-F_off" "collect_-F_on" ratio_off ratio_on per_child_on_ms
for mode in fork exec; do
  plain=$(seconds "$target" "$mode" "$n")
  off=$(seconds "$collect" -d "$work" -F off -A off "$target" "$mode" "$n")
  on=$(seconds "$collect" -d "$work" -F on -A off "$target" "$mode" "$n")
  awk -v m="$mode" -v p="$plain" -v f="$off" -v o="$on" -v n="$n" 'BEGIN {
    printf "%-6s %10.3f %14.3f %14.3f %10.2f %10.2f %16.3f\n", m, p, f, o, f / p, o / p, (o - p) * 1000 / n }'
done
