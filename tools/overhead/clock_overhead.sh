#!/usr/bin/env bash
# Clock-profiling overhead and accuracy of lumen, next to gprofng and perf, on
# a deterministic CPU-bound target (cpu_target.c, about 3 s single-threaded).
#
#   tools/overhead/clock_overhead.sh [BUILD_DIR]      (default build/ in this tree)
#   ROUNDS=N (default 5)
#
# Each round runs every configuration once, in a rotating order, so that a
# slow moment of the machine lands on every configuration alike; a
# configuration's "ratio" is the median over rounds of its time divided by the
# unprofiled run's time in the same round. Wall times are taken around the
# whole command (start-up, collection and writing included). "CPU ratio" is
# the same median of the whole command tree's user+system CPU time (profiler
# processes included), which the other core's load disturbs far less than
# wall time on a shared 2-CPU machine. CPU columns: the
# target's own CLOCK_PROCESS_CPUTIME_ID at exit (handler time of an
# in-process collector included) and the CPU time the profiler reports for it
# (lumen: er_print <Total> e.totalcpu, or e.user of a build from before the
# user/system split; gprofng: <Total> e.totalcpu; perf: the
# cpu-clock event count). It reports figures and never judges them.
#
# Progress goes to stderr, the table to stdout; the targets' own output is
# kept apart. Experiments live in a temporary directory removed at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tree=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$tree/build}
rounds=${ROUNDS:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "clock_overhead: ROUNDS must be a positive integer" >&2; exit 2; }

collect=$build/bin/collect
er_print=$build/bin/er_print
for tool in "$collect" "$er_print"; do
  if [[ ! -x $tool ]]; then
    echo "clock_overhead: $tool not found; build first:" >&2
    echo "  cmake -S $tree -B $build && make -C $build -j2" >&2
    exit 2
  fi
done

work=$(mktemp -d /tmp/clock_overhead.XXXXXX)
trap 'rm -rf "$work"' EXIT

say() { echo "clock_overhead: $*" >&2; }

# Wall-clock seconds without forking (bash 5); date otherwise.
now() { if [[ -n ${EPOCHREALTIME:-} ]]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi; }

target=$work/cpu_target
gcc -O2 -g -o "$target" "$here/cpu_target.c"

# ---- which configurations can run here ----
configs=(alone lumen_on lumen_hi)
declare -A label=(
  [alone]="target alone"
  [lumen_on]="lumen collect -p on (10 ms)"
  [lumen_hi]="lumen collect -p hi (1 ms)"
  [gprofng_on]="gprofng collect app -p on"
  [gprofng_hi]="gprofng collect app -p hi"
  [perf]="perf record -F 999 -g"
)
unavailable=()
if command -v gprofng >/dev/null 2>&1; then
  configs+=(gprofng_on gprofng_hi)
else
  unavailable+=("gprofng: unavailable (not installed)")
fi
if ! command -v perf >/dev/null 2>&1; then
  unavailable+=("perf: unavailable (not installed)")
elif ! perf record --no-bpf-event -F 999 -g -o "$work/probe.data" -- /bin/true >/dev/null 2>"$work/probe.err"; then
  reason=$(grep -v '^$' "$work/probe.err" | head -n 1 || true)
  unavailable+=("perf: unavailable (${reason:-perf record failed})")
else
  configs+=(perf)
fi
rm -f "$work/probe.data" "$work/probe.err"
for line in ${unavailable[@]+"${unavailable[@]}"}; do say "$line"; done

command_of() {  # config round -> the command, in the array `cmd`
  local r=$2
  case $1 in
    alone) cmd=("$target") ;;
    lumen_on) cmd=("$collect" -p on -d "$work" -o "lumen_on.$r.er" "$target") ;;
    lumen_hi) cmd=("$collect" -p hi -d "$work" -o "lumen_hi.$r.er" "$target") ;;
    gprofng_on) cmd=(gprofng collect app -p on -o "$work/gprofng_on.$r.er" "$target") ;;
    gprofng_hi) cmd=(gprofng collect app -p hi -o "$work/gprofng_hi.$r.er" "$target") ;;
    perf) cmd=(perf record --no-bpf-event -F 999 -g -o "$work/perf.$r.data" -- "$target") ;;
  esac
}

# ---- the timed runs ----
results=$work/results.tsv  # config round wall_s target_cpu_s tree_cpu_s
: >"$results"
count=${#configs[@]}
say "$rounds rounds of: ${configs[*]} (experiments in $work)"
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < count; ++k)); do
    config=${configs[$(((k + r - 1) % count))]}
    command_of "$config" "$r"
    log=$work/$config.$r
    start=$(now)
    status=0
    /usr/bin/time -f '%U %S' -o "$log.time" "${cmd[@]}" </dev/null >"$log.stdout" 2>"$log.stderr" || status=$?
    end=$(now)
    cpu=$(sed -n 's/^cpu_target: cpu_seconds=\([0-9.]*\).*/\1/p' "$log.stderr" | tail -n 1)
    if [[ $status -ne 0 || -z $cpu ]]; then
      say "round $r: ${label[$config]} failed (exit $status): $(grep -v '^$' "$log.stderr" | tail -n 1)"
      continue
    fi
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
    tree_cpu=$(awk 'END { printf "%.6f", $1 + $2 }' "$log.time")
    printf '%s\t%d\t%s\t%s\t%s\n' "$config" "$r" "$wall" "$cpu" "$tree_cpu" >>"$results"
    say "round $r: ${label[$config]}: ${wall} s"
  done
done

# ---- what each profiler reports (after the timed runs, so as not to disturb them) ----
reported=$work/reported.tsv  # config round reported_cpu_s
: >"$reported"
while IFS=$'\t' read -r config r _ _; do
  value=""
  case $config in
    lumen_on | lumen_hi)
      for metric in totalcpu user; do
        value=$("$er_print" --format=csv -metrics "e.$metric:name" -functions "$work/$config.$r.er" </dev/null 2>/dev/null |
          awk -F, '$2 == "<Total>" { print $1; exit }') || true
        [[ -n $value ]] && break
      done ;;
    gprofng_on | gprofng_hi)
      value=$(gprofng display text -metrics e.totalcpu:name -functions "$work/$config.$r.er" </dev/null 2>/dev/null |
        awk '$NF == "<Total>" { print $1; exit }') || true ;;
    perf)
      value=$(perf report -i "$work/perf.$r.data" --stdio -g none --sort comm </dev/null 2>/dev/null |
        awk '/^# Event count/ { printf "%.6f", $NF / 1e9; exit }') || true ;;
  esac
  if [[ -n $value ]]; then printf '%s\t%d\t%s\n' "$config" "$r" "$value" >>"$reported"; fi
done <"$results"

# ---- the table ----
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
revision=$(git -C "${source_dir:-/nonexistent}" rev-parse --short HEAD 2>/dev/null || echo "unknown")
if [[ $revision != unknown && -n $(git -C "$source_dir" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
  revision="$revision (working tree with changes)"
fi
echo "# clock_overhead.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds"
echo "# lumen: $build (source ${source_dir:-unknown} at $revision)"
for line in ${unavailable[@]+"${unavailable[@]}"}; do echo "# $line"; done
awk -F'\t' -v order="${configs[*]}" \
  -v labels="$(for c in "${configs[@]}"; do printf '%s\t' "${label[$c]}"; done)" '
  function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return ""
    for (i = 2; i <= n; ++i) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; --j) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  FNR == 1 { file++ }
  file == 1 { wall[$1, $2] = $3; cpu[$1, $2] = $4; tree[$1, $2] = $5; runs[$1]++; walls[$1] = walls[$1] " " $3; cpus[$1] = cpus[$1] " " $4; next }
  file == 2 { if (($1, $2) in cpu && cpu[$1, $2] > 0) fraction[$1] = fraction[$1] " " ($3 / cpu[$1, $2]); rep[$1] = rep[$1] " " $3 }
  END {
    n = split(order, name, " "); split(labels, title, "\t")
    for (i = 1; i <= n; ++i)
      for (key in wall) { split(key, part, SUBSEP)
        if (part[1] == name[i] && (("alone", part[2]) in wall)) {
          ratio[name[i]] = ratio[name[i]] " " (wall[key] / wall["alone", part[2]])
          if (tree["alone", part[2]] > 0) cpu_ratio[name[i]] = cpu_ratio[name[i]] " " (tree[key] / tree["alone", part[2]]) } }
    printf "%-30s %4s %10s %9s %9s %12s %14s %10s\n", "configuration", "runs", "median s", "ratio", "CPU ratio", "target CPU s", "reported CPU s", "rep./true"
    for (i = 1; i <= n; ++i) {
      c = name[i]
      m = median(walls[c]); q = median(ratio[c]); z = median(cpu_ratio[c]); t = median(cpus[c]); p = median(rep[c]); f = median(fraction[c])
      printf "%-30s %4d %10s %9s %9s %12s %14s %10s\n", title[i], runs[c] + 0,
        (m == "" ? "-" : sprintf("%.3f", m)), (q == "" ? "-" : sprintf("%.3f", q)), (z == "" ? "-" : sprintf("%.3f", z)), (t == "" ? "-" : sprintf("%.3f", t)),
        (p == "" ? "-" : sprintf("%.3f", p)), (f == "" ? "-" : sprintf("%.3f", f))
    }
  }' "$results" "$reported"
