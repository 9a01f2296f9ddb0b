# What the overhead harnesses share (sourced, not run): a scratch directory
# removed on exit, messages, timing, the rotation of configurations within a
# round, and the median the tables are made of.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/.../tools/overhead/harness.sh"
#   harness_begin NAME               sets $work, defines say
#   harness_require BUILD TOOL...    each TOOL executable, else exit 2
#   harness_config ROUND K CONFIG... the configuration run K-th in ROUND
#   awk "$harness_awk_median"'...'   median("1 3 2") is 2; "" for no values

harness_begin() {
  harness_name=$1
  work=$(mktemp -d "/tmp/$harness_name.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

say() { echo "$harness_name: $*" >&2; }

now() { if [[ -n ${EPOCHREALTIME:-} ]]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi; }

harness_require() {
  local build=$1
  shift
  local tool
  for tool in "$@"; do
    [[ -x $tool ]] || { say "$tool not found; build $build first"; exit 2; }
  done
}

# Each round starts one configuration later, so no configuration always
# runs first (cold caches) or right after the same neighbour.
harness_config() {
  local round=$1 k=$2
  shift 2
  local configs=("$@")
  echo "${configs[$(((k + round - 1) % ${#configs[@]}))]}"
}

# shellcheck disable=SC2034  # used by the sourcing scripts
harness_awk_median='
  function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return ""
    for (i = 2; i <= n; ++i) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; --j) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
'

# The rounds of a harness that compares whole commands: for each round,
# each workload NAME (the global associative array `workload`: NAME -> its
# command line) runs under each configuration (the global array `configs`,
# the plain run first) in rotating order, through the caller's
# `run_config CONFIG COMMAND...`, which prints "WALL CPU". Fills the global
# wall_ratios and cpu_ratios ("NAME.CONFIG" -> the ratios to the plain run
# of each round), then prints their medians as a markdown table.
harness_ratio_rounds() {
  local rounds=$1
  shift
  local names=("$@") round name k config w c
  declare -gA wall_ratios=() cpu_ratios=()
  for ((round = 1; round <= rounds; ++round)); do
    for name in "${names[@]}"; do
      local command=()
      read -ra command <<<"${workload[$name]}"
      local -A wall=() cpu=()
      for ((k = 1; k <= ${#configs[@]}; ++k)); do
        config=$(harness_config "$round" "$k" "${configs[@]}")
        read -r w c < <(run_config "$config" "${command[@]}")
        wall[$config]=$w cpu[$config]=$c
        say "round $round $name $config: wall $w s, cpu $c s"
      done
      for config in "${configs[@]}"; do
        wall_ratios[$name.$config]+="$(echo "${wall[$config]} / ${wall[${configs[0]}]}" | bc -l) "
        cpu_ratios[$name.$config]+="$(echo "${cpu[$config]} / ${cpu[${configs[0]}]}" | bc -l) "
      done
    done
  done
  local median_of='{ printf "%.3f", median($0) }'
  echo "| workload | configuration | wall ratio | CPU ratio (profiler included) |"
  echo "|---|---|---|---|"
  for name in "${names[@]}"; do
    for config in "${configs[@]:1}"; do
      echo "| $name | $config | $(awk "$harness_awk_median$median_of" <<<"${wall_ratios[$name.$config]}") |" \
        "$(awk "$harness_awk_median$median_of" <<<"${cpu_ratios[$name.$config]}") |"
    done
  done
}
