#!/usr/bin/env bash
# The cost MPI tracing adds to each traced MPI call: a ping-pong of 8-byte
# messages between two ranks (plugins/mpi/bench/mpi_pingpong.c), timed by
# the program itself, run plain and under `collect --profile mpi`, with and
# without call stacks, alternating, ROUNDS times, for each MPI implementation
# built. A round trip's critical path holds four traced calls (rank 0's
# MPI_Send, rank 1's MPI_Recv and MPI_Send, rank 0's MPI_Recv), so the added
# cost per call is (traced - plain) / 4. The same program then times
# MPI_Comm_rank, the cheapest traced call, alone.
#   plugins/mpi/bench/mpi_overhead.sh [BUILD_DIR]   (ROUNDS=5, TRIPS=200000)
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
trips=${TRIPS:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for implementation in openmpi mpich; do
  program=$build/plugins/mpi/bench/mpi_pingpong_$implementation
  [[ -x $program ]] || continue
  launcher=(mpirun.$implementation -np 2)
  [[ $implementation == openmpi ]] && launcher+=(--oversubscribe)
  for kind in plain traced nostacks; do : >"$work/$kind.trip" && : >"$work/$kind.rank"; done
  for ((round = 0; round < rounds; ++round)); do
    "${launcher[@]}" "$program" "$trips" >"$work/out"
    awk '/round_trip_ns/ {print $2 >> "'"$work"'/plain.trip"} /comm_rank_ns/ {print $2 >> "'"$work"'/plain.rank"}' "$work/out"
    "$build/bin/collect" -o "$work/$implementation-r$round.er" --profile mpi -- "${launcher[@]}" "$program" "$trips" >"$work/out" 2>/dev/null
    awk '/round_trip_ns/ {print $2 >> "'"$work"'/traced.trip"} /comm_rank_ns/ {print $2 >> "'"$work"'/traced.rank"}' "$work/out"
    VT_STACKS=0 "$build/bin/collect" -o "$work/$implementation-s$round.er" --profile mpi -- "${launcher[@]}" "$program" "$trips" \
      >"$work/out" 2>/dev/null
    awk '/round_trip_ns/ {print $2 >> "'"$work"'/nostacks.trip"} /comm_rank_ns/ {print $2 >> "'"$work"'/nostacks.rank"}' "$work/out"
  done
  for figure in trip rank; do
    plain=$(median <"$work/plain.$figure")
    traced=$(median <"$work/traced.$figure")
    nostacks=$(median <"$work/nostacks.$figure")
    calls=$([[ $figure == trip ]] && echo 4 || echo 1)
    awk -v i="$implementation" -v f="$figure" -v c="$calls" -v p="$plain" -v t="$traced" -v n="$nostacks" 'BEGIN {
      name = f == "trip" ? "ping-pong round trip" : "MPI_Comm_rank"
      printf "%-8s %-20s plain %8.0f ns  traced %8.0f ns (x%.2f)  without stacks %8.0f ns (x%.2f)  added per call %6.0f / %6.0f ns\n", i, name, p, t, t / p, n, n / p, (t - p) / c, (n - p) / c
    }'
  done
  bytes=$(stat -c %s "$work/$implementation-r0.er/_rank0.er/mpitrace")
  echo "$implementation mpitrace of rank 0: $bytes bytes for $((3 * trips + 2004)) calls and $((2 * trips + 2000)) messages"
done
