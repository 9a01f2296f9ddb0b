#!/usr/bin/env bash
# The cost MPI tracing adds to each traced MPI call: a ping-pong of 8-byte
# messages between two ranks (plugins/mpi/bench/mpi_pingpong.c), timed by
# the program itself, run plain and under `collect --profile mpi`, with and
# without call stacks, alternating, ROUNDS times, for each MPI implementation
# built. A round trip's critical path holds four traced calls (rank 0's
# MPI_Send, rank 1's MPI_Recv and MPI_Send, rank 0's MPI_Recv), so the added
# cost per call is (traced - plain) / 4. The same program then times
# MPI_Comm_rank, the cheapest traced call, alone, and a message to itself
# (MPI_Send then MPI_Recv: 2 calls), both also in the thread's CPU time,
# which a loaded machine inflates far less than wall time.
#   plugins/mpi/bench/mpi_overhead.sh [BUILD_DIR]   (ROUNDS=5, TRIPS=200000)
# PINGPONG_DIR: where the mpi_pingpong_* programs are (default: BUILD_DIR's),
# to time another build's collector with the same programs.
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
trips=${TRIPS:-200000}
programs=${PINGPONG_DIR:-$build/plugins/mpi/bench}
figures=(round_trip_ns comm_rank_ns comm_rank_cpu_ns self_send_recv_cpu_ns)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for implementation in openmpi mpich; do
  program=$programs/mpi_pingpong_$implementation
  [[ -x $program ]] || continue
  launcher=(mpirun.$implementation -np 2)
  [[ $implementation == openmpi ]] && launcher+=(--oversubscribe)
  for kind in plain traced nostacks; do for figure in "${figures[@]}"; do : >"$work/$kind.$figure"; done; done
  keep() {  # keep KIND: the figures of the run in $work/out
    for figure in "${figures[@]}"; do
      awk -v f="$figure" '$1 == f {print $2}' "$work/out" >>"$work/$1.$figure"
    done
  }
  for ((round = 0; round < rounds; ++round)); do
    "${launcher[@]}" "$program" "$trips" >"$work/out"
    keep plain
    "$build/bin/collect" -o "$work/$implementation-r$round.er" --profile mpi -- "${launcher[@]}" "$program" "$trips" >"$work/out" 2>/dev/null
    keep traced
    VT_STACKS=0 "$build/bin/collect" -o "$work/$implementation-s$round.er" --profile mpi -- "${launcher[@]}" "$program" "$trips" \
      >"$work/out" 2>/dev/null
    keep nostacks
  done
  for figure in "${figures[@]}"; do
    [[ -s $work/plain.$figure ]] || continue
    plain=$(median <"$work/plain.$figure")
    traced=$(median <"$work/traced.$figure")
    nostacks=$(median <"$work/nostacks.$figure")
    case $figure in round_trip_ns) calls=4 ;; self_send_recv_cpu_ns) calls=2 ;; *) calls=1 ;; esac
    awk -v i="$implementation" -v f="$figure" -v c="$calls" -v p="$plain" -v t="$traced" -v n="$nostacks" 'BEGIN {
      printf "%-8s %-22s plain %8.0f ns  traced %8.0f ns (x%.2f)  without stacks %8.0f ns (x%.2f)  added per call %6.0f / %6.0f ns\n", i, f, p, t, t / p, n, n / p, (t - p) / c, (n - p) / c
    }'
  done
  bytes=$(($(stat -c "%b*%B" "$work/$implementation-r0.er/_rank0.er/mpitrace")))  # on disk: unused blocks are holes
  echo "$implementation mpitrace of rank 0: $bytes bytes for $((5 * trips + 2006)) calls and $((4 * trips + 2000)) messages"
done
