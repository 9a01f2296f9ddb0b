#!/usr/bin/env bash
# Heap tracing at scale, lumen beside heaptrack, in one run: the same
# allocation-heavy program traced by each, then each tool's leak report on
# its own output.
#
#   bench/heap/heap_scale.sh [BUILD_DIR]      (default build/ in this tree)
#   THREADS=N (default 4)  MILLIONS=M (default 10)  LUMEN_ARGS="..." (extra collect options)
#
# The program is heap_bench_target THREADS MILLIONS (plugins/heap/bench):
# MILLIONS x 1e6 allocations of 16 to 271 bytes and as many frees over
# THREADS threads, each thread replacing the oldest of its last 256 blocks.
# For each step it reports the wall time and peak resident memory
# (/usr/bin/time -v: the largest process of the command), and for the
# traces the bytes on disk per traced event (allocations + frees). It
# reports figures and never judges them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$tree/build}
threads=${THREADS:-4}
millions=${MILLIONS:-10}
collect=$build/bin/collect
er_print=$build/bin/er_print
target=$build/plugins/heap/bench/heap_bench_target
harness_begin heap_scale
harness_require "$build" "$collect" "$er_print" "$target"
[[ -x /usr/bin/time ]] || { say "/usr/bin/time not found (Debian package: time)"; exit 2; }
have_heaptrack=1
command -v heaptrack >/dev/null 2>&1 && command -v heaptrack_print >/dev/null 2>&1 || {
  have_heaptrack=0
  say "heaptrack: not installed (Debian package: heaptrack)"
}

# step NAME COMMAND...: runs it under /usr/bin/time -v; NAME.out, NAME.err, NAME.time in $work.
step() {
  local name=$1
  shift
  say "$name: $*"
  if ! /usr/bin/time -v -o "$work/$name.time" "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err"; then
    say "$name failed:"
    tail -n 5 "$work/$name.err" >&2
    return 1
  fi
}
wall_of() { # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:12.34"
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]; printf "%.2f", s }' \
    "$work/$1.time"
}
rss_of() { awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$work/$1.time"; }
events_of() { sed -n 's/.*allocations=\([0-9]*\).*frees=\([0-9]*\).*/\1 \2/p' "$work/$1.out" "$work/$1.err" | awk '{ print $1 + $2; exit }'; }
per_event() { awk -v b="$1" -v e="$2" 'BEGIN { if (e > 0) printf "%.3f", b / e; else print "-" }'; }

# shellcheck disable=SC2086  # LUMEN_ARGS is a list of words
step lumen_trace "$collect" -H on ${LUMEN_ARGS:-} -d "$work" -o lumen.er "$target" "$threads" "$millions"
step lumen_leaks "$er_print" -leaks "$work/lumen.er"
lumen_events=$(events_of lumen_trace)
lumen_bytes=$(($(stat -c "%b*%B" "$work/lumen.er/heaptrace")))  # on disk: a thread's unused blocks are holes
lumen_dir_bytes=$(du -s -B1 "$work/lumen.er" | cut -f1)

if ((have_heaptrack)); then
  step heaptrack_trace heaptrack -o "$work/heaptrack_data" "$target" "$threads" "$millions"
  heaptrack_file=$(ls "$work"/heaptrack_data.* | head -n 1)
  step heaptrack_leaks heaptrack_print --print-leaks 1 "$heaptrack_file"
  heaptrack_events=$(events_of heaptrack_trace)
  heaptrack_bytes=$(stat -c %s "$heaptrack_file")
fi

echo "# heap_scale.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# program: heap_bench_target $threads $millions ($lumen_events events under lumen)${LUMEN_ARGS:+  collect options: $LUMEN_ARGS}"
printf '%-34s %10s %12s %14s\n' "step" "wall s" "peak RSS MB" "B per event"
printf '%-34s %10s %12s %14s\n' "collect -H on" "$(wall_of lumen_trace)" "$(rss_of lumen_trace)" \
  "$(per_event "$lumen_bytes" "$lumen_events")"
printf '%-34s %10s %12s %14s\n' "er_print -leaks" "$(wall_of lumen_leaks)" "$(rss_of lumen_leaks)" "-"
if ((have_heaptrack)); then
  printf '%-34s %10s %12s %14s\n' "heaptrack" "$(wall_of heaptrack_trace)" "$(rss_of heaptrack_trace)" \
    "$(per_event "$heaptrack_bytes" "$heaptrack_events")"
  printf '%-34s %10s %12s %14s\n' "heaptrack_print --print-leaks 1" "$(wall_of heaptrack_leaks)" \
    "$(rss_of heaptrack_leaks)" "-"
fi
echo "# lumen: heaptrace file $lumen_bytes bytes, experiment directory $lumen_dir_bytes bytes"
((have_heaptrack)) && echo "# heaptrack: $(basename "$heaptrack_file") $heaptrack_bytes bytes"
echo "# er_print -leaks summary:"
grep -iE '^ *(leaks|bytes leaked)' "$work/lumen_leaks.out" | sed 's/^/#   /' || true
