#!/usr/bin/env bash
# Slowdown of an allocation-heavy target under lumen's heap tracing, under
# heaptrack and under gprofng's, and the bytes each writes per traced event,
# in one run.
#
#   plugins/heap/bench/heap_overhead.sh [BUILD_DIR]     (default build/ in this tree)
#   ROUNDS=N (default 3)  THREADS=N (default 4)  MILLIONS=M (default 4)
#   GPROFNG_MILLIONS=M (default 0.2: gprofng costs ~60 µs a call here)
#
# The target (heap_bench_target THREADS MILLIONS) makes MILLIONS x 1e6 small
# allocations and as many frees over THREADS threads and prints the time of
# its own loops (CLOCK_MONOTONIC, start-up excluded). Each round runs every
# configuration once, in a rotating order. Per configuration it reports the
# median over rounds of:
#   loop ratio   its loop time per allocation / the plain run's, same round
#   wall ratio   its whole command's wall time / the plain run's (same size only)
#   CPU ratio    user+system time of the whole command tree (the tool's helper
#                processes included) / the plain run's; load on the shared
#                machine disturbs it much less than wall time
# and, from the last round, the bytes on disk per traced event (allocations +
# frees): lumen's experiment directory, heaptrack's compressed output file,
# gprofng's experiment directory. It reports figures and never judges them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-3}
threads=${THREADS:-4}
millions=${MILLIONS:-4}
gprofng_millions=${GPROFNG_MILLIONS:-0.2}
collect=$build/bin/collect
er_print=$build/bin/er_print
target=$build/plugins/heap/bench/heap_bench_target
harness_begin heap_overhead
harness_require "$build" "$collect" "$er_print" "$target"
[[ -x /usr/bin/time ]] || { say "/usr/bin/time not found (Debian package: time)"; exit 2; }

configs=(alone lumen)
declare -A label=([alone]="target alone" [lumen]="lumen collect -H on" [heaptrack]="heaptrack"
  [gprofng]="gprofng collect app -H on")
declare -A size=([alone]=$millions [lumen]=$millions [heaptrack]=$millions [gprofng]=$gprofng_millions)
if command -v heaptrack >/dev/null 2>&1; then configs+=(heaptrack); else say "heaptrack: not installed"; fi
if command -v gprofng >/dev/null 2>&1; then configs+=(gprofng); else say "gprofng: not installed"; fi

results=$work/results.tsv  # config round wall_s cpu_s loop_s allocations frees
: >"$results"
count=${#configs[@]}
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < count; ++k)); do
    config=$(harness_config "$r" "$k" "${configs[@]}")
    args=("$threads" "${size[$config]}")
    case $config in
      alone) cmd=("$target" "${args[@]}") ;;
      lumen) cmd=("$collect" -H on -d "$work" -o "lumen.$r.er" "$target" "${args[@]}") ;;
      heaptrack) cmd=(heaptrack -o "$work/heaptrack_data.$r" "$target" "${args[@]}") ;;
      gprofng) cmd=(gprofng collect app -H on -o "$work/gprofng.$r.er" "$target" "${args[@]}") ;;
    esac
    status=0
    /usr/bin/time -f '%e %U %S' -o "$work/$config.$r.time" "${cmd[@]}" </dev/null >"$work/$config.$r.out" \
      2>"$work/$config.$r.err" || status=$?
    line=$(grep -h 'seconds=' "$work/$config.$r.out" "$work/$config.$r.err" | tail -n 1 || true)
    loop=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$line")
    allocations=$(sed -n 's/.*allocations=\([0-9]*\).*/\1/p' <<<"$line")
    frees=$(sed -n 's/.*frees=\([0-9]*\).*/\1/p' <<<"$line")
    if [[ $status -ne 0 || -z $loop ]]; then say "round $r: ${label[$config]} failed (exit $status)"; continue; fi
    read -r wall user sys <"$work/$config.$r.time"
    printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$config" "$r" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
      "$loop" "$allocations" "$frees" >>"$results"
    say "round $r: ${label[$config]}: loops ${loop} s, wall ${wall} s"
  done
done

# Bytes per traced event, from the last round's outputs.
events_of() { awk -F'\t' -v c="$1" -v r="$rounds" '$1 == c && $2 == r { print $6 + $7 }' "$results"; }
bytes_lumen=$(du -s -B1 "$work/lumen.$rounds.er" 2>/dev/null | cut -f1 || true)
bytes_lumen_heap=$(($(stat -c "%b*%B" "$work/lumen.$rounds.er/heaptrace" 2>/dev/null || echo 0)))  # on disk: unused blocks are holes
bytes_heaptrack=$(stat -c %s "$work"/heaptrack_data."$rounds".* 2>/dev/null | head -n 1 || true)
bytes_gprofng=$(du -sb "$work/gprofng.$rounds.er" 2>/dev/null | cut -f1 || true)
# What lumen recorded, to show the counts are whole.
recorded=$("$er_print" --format=csv -metrics i.heapalloccnt:name -functions "$work/lumen.$rounds.er" 2>/dev/null |
  awk -F, '$2 == "<Total>" { print $1; exit }' || true)

echo "# heap_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# target: heap_bench_target $threads $millions (gprofng: $threads $gprofng_millions)"
awk -F'\t' -v order="${configs[*]}" -v labels="$(for c in "${configs[@]}"; do printf '%s\t' "${label[$c]}"; done)" "$harness_awk_median"'
  { wall[$1, $2] = $3; cpu[$1, $2] = $4; per[$1, $2] = $5 / $6; alloc[$1, $2] = $6
    loops[$1] = loops[$1] " " $5; runs[$1]++ }
  END {
    n = split(order, name, " "); split(labels, title, "\t")
    for (key in per) { split(key, part, SUBSEP); r = part[2]
      if (!(("alone", r) in per)) continue
      lr[part[1]] = lr[part[1]] " " (per[key] / per["alone", r])
      if (alloc[key] == alloc["alone", r]) {
        wr[part[1]] = wr[part[1]] " " (wall[key] / wall["alone", r])
        if (cpu["alone", r] > 0) cr[part[1]] = cr[part[1]] " " (cpu[key] / cpu["alone", r]) } }
    printf "%-28s %4s %13s %11s %11s %11s\n", "configuration", "runs", "median loop s", "loop ratio", "wall ratio", "CPU ratio"
    for (i = 1; i <= n; ++i) { c = name[i]; m = median(loops[c]); a = median(lr[c]); b = median(wr[c]); d = median(cr[c])
      printf "%-28s %4d %13s %11s %11s %11s\n", title[i], runs[c] + 0, (m == "" ? "-" : sprintf("%.3f", m)),
        (a == "" ? "-" : sprintf("%.2f", a)), (b == "" ? "-" : sprintf("%.2f", b)), (d == "" ? "-" : sprintf("%.2f", d)) }
  }' "$results"
per_event() { [[ -n $1 && -n $2 && $2 -gt 0 ]] && awk -v b="$1" -v e="$2" 'BEGIN { printf "%.3f", b / e }' || echo "-"; }
echo "# bytes on disk per traced event (last round):"
echo "#   lumen experiment $(per_event "$bytes_lumen" "$(events_of lumen)") B (heaptrace file alone $(per_event "$bytes_lumen_heap" "$(events_of lumen)") B; ${bytes_lumen:--} bytes)"
echo "#   heaptrack output $(per_event "$bytes_heaptrack" "$(events_of heaptrack)") B (${bytes_heaptrack:--} bytes)"
echo "#   gprofng experiment $(per_event "$bytes_gprofng" "$(events_of gprofng)") B (${bytes_gprofng:--} bytes)"
echo "# lumen recorded ${recorded:--} allocations (the target made $(awk -F'\t' -v r="$rounds" '$1 == "lumen" && $2 == r { print $6 }' "$results"))"
