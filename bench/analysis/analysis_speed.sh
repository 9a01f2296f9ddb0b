#!/bin/bash
# Analysis speed on large experiments: er_print -functions
# and -callers-callees on an experiment of EVENTS (10 M) clock events with
# realistic stacks, beside gprofng display text -functions and perf report
# --stdio, all measured in this one run with /usr/bin/time -f '%e %M %U %S'.
#
# What is compared with what:
#  1. One CPU-bound program with many distinct stacks (stack_mix_target) is
#     profiled for SECONDS seconds by each tool: lumen `collect -p hi`,
#     `gprofng collect app -p hi`, `perf record -F 999 -g`.
#  2. lumen's real recording is scaled to EVENTS events by
#     clock_experiment_gen (same stacks, load objects and binary; events
#     drawn from the recorded ones), and er_print runs on both.
#  3. gprofng and perf are analysed on their real recordings; since those
#     hold far fewer events, the table also gives time per event.
# Measures and reports; never passes or fails. Experiments live in a
# temporary directory removed at the end.
#   bench/analysis/analysis_speed.sh BUILD_DIR [EVENTS] [SECONDS]
set -euo pipefail
build=$(realpath "${1:?usage: analysis_speed.sh BUILD_DIR [EVENTS] [SECONDS]}")
events=${2:-10000000}
seconds=${3:-60}
target=$build/bin/stack_mix_target
gen=$build/bin/clock_experiment_gen
collect=$build/bin/collect
er_print=$build/bin/er_print
work=$(mktemp -d /tmp/analysis_speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

echo "# recording $seconds s of stack_mix_target with each tool" >&2
"$collect" -d "$work" -o real.er -p hi -A off "$target" "$seconds" > /dev/null 2>&1
gprofng collect app -o gprofng.er -p hi "$target" "$seconds" > /dev/null 2>&1
perf record --no-bpf-event -F 999 -g -o perf.data "$target" "$seconds" > /dev/null 2>&1

echo "# scaling lumen's recording to $events events" >&2
real_events=$("$gen" real.er big.er "$events" | sed -n 's/.* from \([0-9]*\) recorded.*/\1/p')
perf_events=$(perf report -i perf.data -D 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE' || true)
# gprofng records no count we can print; its events are its total CPU time
# over its interval (0.997 ms).
gprofng_cpu=$(gprofng display text -functions gprofng.er 2>/dev/null | awk '/<Total>/ {print $1; exit}')
gprofng_events=$(awk -v c="${gprofng_cpu:-0}" 'BEGIN {printf "%d", c / 0.000997 + 0.5}')

measure() {  # label events command...: wall and CPU (user+sys) seconds, peak RSS, wall per event
  local label=$1 n=$2
  shift 2
  /usr/bin/time -o "$work/time" -f '%e %M %U %S' "$@" > "$work/out" 2> "$work/err" || true
  read -r wall rss user sys < "$work/time"
  awk -v l="$label" -v n="$n" -v w="$wall" -v r="$rss" -v c="$user" -v s="$sys" 'BEGIN {
    printf "%-40s %10d %8.2f %8.2f %9.1f %12.3f\n", l, n, w, c + s, r / 1024, (n > 0 ? w * 1e6 / n : 0) }'
}

printf '%-40s %10s %8s %8s %9s %12s\n' run events wall_s cpu_s peak_MiB wall_us/event
measure "er_print -functions (scaled)" "$events" "$er_print" -functions big.er
measure "er_print -callers-callees (scaled)" "$events" "$er_print" -callers-callees big.er
measure "er_print -functions (real)" "$real_events" "$er_print" -functions real.er
measure "er_print -callers-callees (real)" "$real_events" "$er_print" -callers-callees real.er
measure "gprofng display text -functions (real)" "$gprofng_events" gprofng display text -functions gprofng.er
measure "gprofng display text -callers-callees" "$gprofng_events" gprofng display text -callers-callees gprofng.er
measure "perf report --stdio (real)" "$perf_events" perf report -i perf.data --stdio
measure "perf report --stdio --no-children -g none" "$perf_events" perf report -i perf.data --stdio --no-children -g none
du -sh big.er real.er gprofng.er perf.data >&2
