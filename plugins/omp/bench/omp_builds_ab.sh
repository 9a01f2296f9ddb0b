#!/usr/bin/env bash
# Two builds of lumen timed against each other on the region benchmark:
# each round runs `collect -p on -omp off` and `collect -p on` (OpenMP on)
# of both builds, in a rotating order, for each runtime, so that the
# machine's drift between runs (3-10 % here) falls on both builds alike.
# Prints, per runtime and build, the median loop seconds of each
# configuration and the OpenMP half's µs a region (median over rounds of
# on minus off, each round's own pair).
#
#   plugins/omp/bench/omp_builds_ab.sh BEFORE_BUILD AFTER_BUILD
#   ROUNDS=N (default 5)  REGIONS=N (default 200000)  THREADS=N (default 2)  WORK_US=U (default 0)
#
# WORK_US=0 times a region's critical path (the team's callbacks in turn);
# WORK_US=20 the benchmark's regions, where both CPUs are busy and every
# cycle the collector takes counts.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
[[ $# -eq 2 ]] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD" >&2; exit 2; }
declare -A builds=([before]=$1 [after]=$2)
rounds=${ROUNDS:-5}
regions=${REGIONS:-200000}
args=("$regions" "${THREADS:-2}" "${WORK_US:-0}" 0)
harness_begin omp_builds_ab
for b in before after; do
  harness_require "${builds[$b]}" "${builds[$b]}/bin/collect" "${builds[$b]}/plugins/omp/bench/omp_regions_bench"
done
runtimes=(omp_regions_bench)
[[ -x ${builds[before]}/plugins/omp/bench/omp_regions_bench_clang && -x ${builds[after]}/plugins/omp/bench/omp_regions_bench_clang ]] &&
  runtimes+=(omp_regions_bench_clang)
configs=(before:off before:on after:off after:on)
results=$work/results.tsv  # target build omp round seconds
echo "# omp_builds_ab.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  rounds=$rounds  ${args[*]}"
for ((r = 1; r <= rounds; ++r)); do
  for target in "${runtimes[@]}"; do
    for ((k = 0; k < ${#configs[@]}; ++k)); do
      config=$(harness_config "$r" "$k" "${configs[@]}")
      build=${builds[${config%%:*}]}
      omp=${config##*:}
      rm -rf "$work/x.er"
      loop=$("$build/bin/collect" -p on -omp "$omp" -d "$work" -o x.er "$build/plugins/omp/bench/$target" "${args[@]}" \
        </dev/null 2>/dev/null | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' | tail -n 1)
      [[ -n $loop ]] || { say "round $r: $target $config failed"; continue; }
      printf '%s\t%s\t%s\t%d\t%s\n' "$target" "${config%%:*}" "$omp" "$r" "$loop" >>"$results"
    done
  done
  say "round $r done"
done
printf "%-26s %-7s %12s %12s %14s\n" target build "-omp off s" "OpenMP on s" "µs a region"
awk -F'\t' -v regions="$regions" "$harness_awk_median"'
  { t[$1 SUBSEP $2 SUBSEP $3 SUBSEP $4] = $5; loops[$1 SUBSEP $2 SUBSEP $3] = loops[$1 SUBSEP $2 SUBSEP $3] " " $5;
    seen[$1 SUBSEP $2] = 1; if ($4 > last) last = $4 }
  END {
    for (key in seen) {
      split(key, part, SUBSEP); diffs = ""
      for (r = 1; r <= last; ++r) {
        on = t[part[1] SUBSEP part[2] SUBSEP "on" SUBSEP r]; off = t[part[1] SUBSEP part[2] SUBSEP "off" SUBSEP r]
        if (on != "" && off != "") diffs = diffs " " (on - off) * 1e6 / regions
      }
      printf "%-26s %-7s %12.3f %12.3f %14.3f\n", part[1], part[2], median(loops[key SUBSEP "off"]),
        median(loops[key SUBSEP "on"]), median(diffs)
    }
  }' "$results" | sort
