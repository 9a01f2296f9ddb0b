#!/usr/bin/env bash
# What a short thread's begin and end cost under each collector: the churn
# target creates and joins THREADS threads one after another (each mallocs
# and frees 64 bytes), run alone, under gprofng, perf and lumen's default
# collection with and without the states.
#
#   plugins/states/bench/churn.sh [BUILD_DIR] [TARGET]   (default build/ in this tree, its churn_target)
#   ROUNDS=N (default 5)  THREADS=N (default 5000)
#
# TARGET lets a build without churn_target (an older main) time the same
# binary. gprofng and perf are left out when not installed. Reported per
# configuration: the medians of wall, user and system seconds of the whole
# command (the collector's start and end included), in a rotating order.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../../tools/overhead/harness.sh"
tree=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$tree/build}
target=${2:-$build/plugins/states/bench/churn_target}
rounds=${ROUNDS:-5}
threads=${THREADS:-5000}
collect=$build/bin/collect
harness_begin churn
harness_require "$build" "$collect" "$target" /usr/bin/time

configs=(plain lumen_states lumen_no_states)
command -v gprofng >/dev/null && configs+=(gprofng)
command -v perf >/dev/null && configs+=(perf)
results=$work/results.tsv  # config round wall user sys
: >"$results"
for ((r = 1; r <= rounds; ++r)); do
  for ((k = 0; k < ${#configs[@]}; ++k)); do
    config=$(harness_config "$r" "$k" "${configs[@]}")
    name="$config.$r"
    case $config in
      plain) cmd=("$target" "$threads") ;;
      gprofng) cmd=(gprofng collect app -O "$work/$name.er" "$target" "$threads") ;;
      perf) cmd=(perf record -q -F 100 -g -o "$work/$name.data" "$target" "$threads") ;;
      lumen_states) cmd=("$collect" -p on -d "$work" -o "$name.er" "$target" "$threads") ;;
      lumen_no_states) cmd=("$collect" -p on -states off -d "$work" -o "$name.er" "$target" "$threads") ;;
    esac
    /usr/bin/time -f '%e %U %S' -o "$work/$name.time" "${cmd[@]}" </dev/null >"$work/$name.out" 2>"$work/$name.err" ||
      { say "$name failed: $(tail -n 3 "$work/$name.err")"; continue; }
    read -r wall user sys <"$work/$name.time"
    printf '%s\t%d\t%s\t%s\t%s\n' "$config" "$r" "$wall" "$user" "$sys" >>"$results"
    say "$name: wall $wall s, user $user s, sys $sys s"
    rm -rf "$work/$name.er" "$work/$name.data"
  done
done

echo "# churn.sh  $(date -u '+%Y-%m-%d %H:%M UTC')  $(uname -r)  $(nproc) CPUs  rounds=$rounds  threads=$threads  build=$build"
awk -F'\t' "$harness_awk_median"'
  { seen[$1] = 1; wall[$1] = wall[$1] " " $3; user[$1] = user[$1] " " $4; sys[$1] = sys[$1] " " $5 }
  END {
    printf "%-16s %8s %8s %8s\n", "config", "wall s", "user s", "sys s"
    n = split("plain gprofng perf lumen_states lumen_no_states", order, " ")
    for (i = 1; i <= n; ++i) if (order[i] in seen)
      printf "%-16s %8.2f %8.2f %8.2f\n", order[i], median(wall[order[i]]), median(user[order[i]]), median(sys[order[i]])
  }' "$results"
