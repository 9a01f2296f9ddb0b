#!/usr/bin/env bash
# What measuring the hosts' clocks at MPI_Init and MPI_Finalize costs a job
# across hosts: mpi_clock_target (one round of the ring) on RANKS ranks, half
# on each of two hosts made here (tools/test-hosts.sh), under collect with the
# mpi plugin's clock_sync on and off, ROUNDS runs each; the job's wall time
# and the error each run's alignment recorded.
#   plugins/mpi/bench/mpi_clock_sync.sh [BUILD_DIR] [RANKS]   (build, 64; Open MPI)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "${1:-build}" && pwd)
ranks=${2:-64}
rounds=${ROUNDS:-3}
hosts=$root/tools/test-hosts.sh
program=$build/plugins/mpi/tests/mpi_clock_target_openmpi
[[ -x $program ]] || { echo "no $program: build with the tests" >&2; exit 2; }
work=$(mktemp -d)
trap '"$hosts" remove; rm -rf "$work"' EXIT
"$hosts" create 2 >/dev/null
sed 's/clock_sync: on/clock_sync: off/' "$root/profiles/mpi.yaml" >"$work/off.yaml"
half=$((ranks / 2))
for setting in on off; do
  profile=mpi
  [[ $setting == off ]] && profile=$work/off.yaml
  for run in $(seq "$rounds"); do
    rm -rf "$work/run.er"
    start=$(date +%s.%N)
    "$hosts" launch "$build/bin/collect" --profile "$profile" -o "$work/run.er" -- mpirun.openmpi --allow-run-as-root \
      --oversubscribe --mca plm_rsh_agent "$hosts" --mca oob_tcp_if_include 10.77.0.0/24 \
      --mca btl_tcp_if_include 10.77.0.0/24 --mca btl tcp,self --host "10.77.0.2:$half,10.77.0.3:$half" \
      -np "$ranks" "$program" "$work" 1 0 >/dev/null 2>"$work/err" || { tail -3 "$work/err"; exit 1; }
    end=$(date +%s.%N)
    error=$("$build/bin/er_print" -mpi_timeline "$work/run.er" 2>/dev/null |
      awk '/^Clocks/ {on = 1} on && / on lumen-h2$/ {print $3 " us at MPI_Init, " $5 " us at MPI_Finalize"; exit}')
    printf 'clock_sync %s: %.2f s%s\n' "$setting" "$(echo "$end - $start" | bc)" "${error:+, error $error}"
  done
done
