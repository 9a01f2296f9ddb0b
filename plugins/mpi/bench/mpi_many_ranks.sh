#!/usr/bin/env bash
# An MPI job of many ranks on this machine, recorded in both launch forms
# (collect around the launcher; the launcher running collect per rank), and
# what er_print's views of it cost: wall time and peak memory of the record
# and of each view. With HOSTS=N the ranks are spread over N hosts made here
# (tools/test-hosts.sh, reached over ssh), the launcher on a host of its own.
#   plugins/mpi/bench/mpi_many_ranks.sh [BUILD_DIR] [RANKS] [openmpi|mpich]   (build, 256, mpich)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "${1:-build}" && pwd)
ranks=${2:-256}
implementation=${3:-mpich}
hosts=${HOSTS:-0}
program=$build/plugins/mpi/tests/mpi_exchange_target_$implementation
[[ -x $program ]] || { echo "no $program: build with the tests" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; [[ $hosts -gt 0 ]] && "$root/tools/test-hosts.sh" remove' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launcher=(mpirun.$implementation -np "$ranks")
[[ $implementation == openmpi ]] && launcher+=(--oversubscribe)
prefix=()
if [[ $hosts -gt 0 ]]; then
  "$root/tools/test-hosts.sh" create "$hosts" >/dev/null
  ssh=/tmp/lumen-test-hosts/ssh/ssh
  list=""
  for ((h = 1; h <= hosts; ++h)); do list+="${list:+,}10.77.0.$((h + 1)):$((ranks / hosts))"; done
  if [[ $implementation == openmpi ]]; then
    launcher+=(--mca plm_rsh_agent "$ssh" --mca oob_tcp_if_include 10.77.0.0/24 --mca btl_tcp_if_include 10.77.0.0/24
               --mca btl tcp,self --host "$list")
  else
    launcher+=(-localhost 10.77.0.1 -launcher ssh -launcher-exec "$ssh" -hosts "$list")
  fi
  prefix=("$root/tools/test-hosts.sh" launch)
  echo "$ranks ranks over $hosts hosts: $list"
fi
mkdir "$work/truth"
/usr/bin/time -f "plain job: %e s" "${prefix[@]}" "${launcher[@]}" "$program" "$work/truth" >/dev/null
/usr/bin/time -o "$work/time" -f "collect around the launcher: %e s" "${prefix[@]}" \
  "$build/bin/collect" -o "$work/around.er" --profile mpi -- "${launcher[@]}" "$program" "$work/truth" >/dev/null 2>"$work/err" ||
  { tail -3 "$work/err"; exit 1; }
cat "$work/time"
/usr/bin/time -o "$work/time" -f "collect per rank: %e s" "${prefix[@]}" \
  "${launcher[@]}" "$build/bin/collect" -o "$work/per_rank.er" --profile mpi "$program" "$work/truth" >/dev/null 2>"$work/err" ||
  { tail -3 "$work/err"; exit 1; }
cat "$work/time"
for experiment in around per_rank; do
  echo "$experiment.er: $(ls -d "$work/$experiment.er"/_rank*.er | wc -l) ranks, $(du -sh "$work/$experiment.er" | cut -f1)"
  for view in -mpi_ranks -mpi_stats -functions -mpi_messages -mpi_timeline; do
    /usr/bin/time -o "$work/time" -f "  er_print $view: %e s, %M KB" "$build/bin/er_print" $view "$work/$experiment.er" \
      >/dev/null 2>"$work/err" || { tail -3 "$work/err"; exit 1; }
    cat "$work/time"
  done
done
