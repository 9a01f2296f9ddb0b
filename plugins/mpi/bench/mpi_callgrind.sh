#!/usr/bin/env bash
# Instructions tracing adds to a traced MPI call, counted by callgrind: a
# figure the machine's load does not change. mpi_pingpong runs alone (one
# rank, no launcher: MPI_Comm_rank CALLS times, then CALLS MPI_Send and
# MPI_Recv to itself) under `collect --profile mpi`, with and without call
# stacks, for each MPI implementation built. Per call: the wrapper's
# inclusive instructions (MPI_X) less those of the real call (PMPI_X), over
# the calls made (CALLS, and 2 more MPI_Comm_rank in the program itself).
# Also the trace's bytes per call.
#   plugins/mpi/bench/mpi_callgrind.sh [BUILD_DIR] [CALLS]   (CALLS=20000)
# PINGPONG_DIR: where the mpi_pingpong_* programs are (default: BUILD_DIR's).
set -euo pipefail
build=${1:-build}
calls=${2:-20000}
programs=${PINGPONG_DIR:-$build/plugins/mpi/bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# inclusive FUNCTION: its inclusive instruction count in $work/out
inclusive() {
  callgrind_annotate --inclusive=yes --threshold=100 "$work/out" 2>/dev/null |
    awk -v f="$1" '{ n = $0; gsub(/,/, "", $1) } index(n, " " f " ") || n ~ (" " f "$") || n ~ (":" f " ") || n ~ (":" f "$") { print $1; exit }'
}

for implementation in openmpi mpich; do
  program=$programs/mpi_pingpong_$implementation
  [[ -x $program ]] || continue
  for stacks in 1 0; do
    rm -rf "$work/x.er"
    VT_STACKS=$stacks "$build/bin/collect" -o "$work/x.er" --profile mpi -- \
      valgrind --tool=callgrind --callgrind-out-file="$work/out" "$program" "$calls" >/dev/null 2>&1
    trace=$(find "$work/x.er" -name mpitrace | head -1)
    clock=$(grep -h -o "call times from[^\"]*" "$work/x.er"/*log* 2>/dev/null | head -1 || true)
    for function in Comm_rank Send Recv; do
      wrapper=$(inclusive "MPI_$function")
      real=$(inclusive "PMPI_$function")
      n=$calls
      [[ $function == Comm_rank ]] && n=$((calls + 2))
      awk -v i="$implementation" -v s="$stacks" -v f="MPI_$function" -v w="${wrapper:-0}" -v r="${real:-0}" -v n="$n" \
        'BEGIN { printf "%-8s VT_STACKS=%s %-14s %6.0f instructions added per call\n", i, s, f, (w - r) / n }'
    done
    bytes=$(($(stat -c "%b*%B" "$trace")))  # on disk: unused blocks are holes
    echo "$implementation VT_STACKS=$stacks mpitrace: $bytes bytes on disk for $((3 * calls + 2)) calls; ${clock:-clock not noted}"
  done
done
