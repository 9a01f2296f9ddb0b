#!/usr/bin/env bash
# An MPI job of many ranks on this machine, recorded in both launch forms
# (collect around the launcher; the launcher running collect per rank), and
# what er_print's views of it cost: wall time and peak memory of the record
# and of each view.
#   plugins/mpi/bench/mpi_many_ranks.sh [BUILD_DIR] [RANKS] [openmpi|mpich]   (build, 256, mpich)
set -euo pipefail
build=${1:-build}
ranks=${2:-256}
implementation=${3:-mpich}
program=$build/plugins/mpi/tests/mpi_exchange_target_$implementation
[[ -x $program ]] || { echo "no $program: build with the tests" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launcher=(mpirun.$implementation -np "$ranks")
[[ $implementation == openmpi ]] && launcher+=(--oversubscribe)
mkdir "$work/truth"
/usr/bin/time -f "plain job: %e s" "${launcher[@]}" "$program" "$work/truth" >/dev/null
/usr/bin/time -o "$work/time" -f "collect around the launcher: %e s" \
  "$build/bin/collect" -o "$work/around.er" --profile mpi -- "${launcher[@]}" "$program" "$work/truth" >/dev/null 2>"$work/err" ||
  { tail -3 "$work/err"; exit 1; }
cat "$work/time"
/usr/bin/time -o "$work/time" -f "collect per rank: %e s" \
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
