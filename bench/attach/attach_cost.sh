#!/usr/bin/env bash
# collect -P's costs: how long the attach and the detach take on a process
# of 100 threads (bench/attach/pool_target.c: 98 idle in a pool, 2 busy),
# as collect reports them (from the first ptrace stop to the last thread's
# collection begun; from the first thread's end to the unload), and the
# experiment's first record and first clock sample after collect started;
# and the slowdown of a CPU-bound program (tools/overhead/cpu_target.c,
# about 3 s) attached to right after it starts, against the same program
# under collect from its start and alone, at the same rate (-p 1).
#
#   bench/attach/attach_cost.sh [BUILD_DIR]   (default build/ in this tree)
#   ROUNDS=N (default 5)
#
# It reports figures and never judges them.
set -euo pipefail

tree=$(cd "$(dirname "$0")/../.." && pwd)
source "$tree/tools/overhead/harness.sh"
build=${1:-$tree/build}
rounds=${ROUNDS:-5}
collect=$build/bin/collect
harness_begin attach_cost
harness_require "$build" "$collect"
gcc -O2 -o "$work/pool_target" "$tree/bench/attach/pool_target.c" -lpthread
gcc -O2 -g -o "$work/cpu_target" "$tree/tools/overhead/cpu_target.c"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The experiment's earliest record of any kind, and its earliest clock
# sample, in ms since collect started (the experiment's time origin).
first_records() {
  python3 -c '
import json, sys
rows = json.load(sys.stdin)["tables"][0]["rows"]
times = [float(r["time"]) for r in rows]
clock = [float(r["time"]) for r in rows if r["data"] == "clock"]
print("%.1f %.1f" % (min(times) * 1e3, min(clock) * 1e3))'
}

: >"$work/attach_ms"
: >"$work/detach_ms"
: >"$work/first"
for ((round = 1; round <= rounds; round++)); do
  "$work/pool_target" &
  pool=$!
  sleep 0.3
  "$collect" -P "$pool" -t 1 -A off -o a.er -d "$work" 2>"$work/err" >/dev/null || { cat "$work/err" >&2; exit 1; }
  kill "$pool"
  wait "$pool" 2>/dev/null || true
  "$build/bin/er_print" --format=json -event_list 1000000 "$work/a.er" 2>/dev/null | first_records >>"$work/first"
  rm -rf "$work/a.er"
  sed -n 's/.*attached to process .* (\([0-9]*\) threads) in \([0-9]*\) ms.*/\2/p' "$work/err" >>"$work/attach_ms"
  sed -n 's/.*detached from process .* in \([0-9]*\) ms.*/\1/p' "$work/err" >>"$work/detach_ms"
done
echo "attach, 100 threads: median $(median <"$work/attach_ms") ms over $rounds (each: $(tr '\n' ' ' <"$work/attach_ms"))"
echo "first record, 100 threads: median $(cut -d' ' -f1 "$work/first" | median) ms after collect started (each: $(cut -d' ' -f1 "$work/first" | tr '\n' ' '))"
echo "first clock sample (-p on), 100 threads: median $(cut -d' ' -f2 "$work/first" | median) ms after collect started (each: $(cut -d' ' -f2 "$work/first" | tr '\n' ' '))"
echo "detach, 100 threads: median $(median <"$work/detach_ms") ms over $rounds (each: $(tr '\n' ' ' <"$work/detach_ms"))"

wall_of() { sed -n 's/.*wall_seconds=\([0-9.]*\).*/\1/p' "$1"; }
: >"$work/plain"
: >"$work/from_start"
: >"$work/attached"
for ((round = 1; round <= rounds; round++)); do
  "$work/cpu_target" >/dev/null 2>"$work/t"
  wall_of "$work/t" >>"$work/plain"
  rm -rf "$work/s.er"
  "$collect" -p 1 -A off -o s.er -d "$work" "$work/cpu_target" >/dev/null 2>"$work/t"
  wall_of "$work/t" >>"$work/from_start"
  rm -rf "$work/p.er"
  "$work/cpu_target" >/dev/null 2>"$work/t" &
  target=$!
  "$collect" -P "$target" -p 1 -A off -o p.er -d "$work" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  wait "$target"
  wall_of "$work/t" >>"$work/attached"
done
plain=$(median <"$work/plain")
echo "cpu_target alone: median wall $plain s"
echo "under collect -p 1 from its start: median wall $(median <"$work/from_start") s ($(echo "$(median <"$work/from_start") / $plain" | bc -l | cut -c1-5)x)"
echo "attached with collect -P -p 1 right after it starts: median wall $(median <"$work/attached") s ($(echo "$(median <"$work/attached") / $plain" | bc -l | cut -c1-5)x)"
