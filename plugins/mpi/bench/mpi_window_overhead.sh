#!/usr/bin/env bash
# What MPI tracing costs small nonblocking messages sent in windows, as
# osu_bw sends them (plugins/mpi/bench/mpi_window_bandwidth.c): 1-byte
# messages, on 2 ranks (bandwidth in MB/s, wall time) and on 1 rank
# messaging itself (CPU time a message, which a loaded machine inflates far
# less), plain and under `collect --profile mpi`, alternating, ROUNDS times,
# for each MPI implementation built; medians.
#   plugins/mpi/bench/mpi_window_overhead.sh [BUILD_DIR]   (ROUNDS=5, WINDOWS=20000)
set -euo pipefail
build=${1:-build}
rounds=${ROUNDS:-5}
windows=${WINDOWS:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for implementation in openmpi mpich; do
  program=$build/plugins/mpi/bench/mpi_window_bandwidth_$implementation
  [[ -x $program ]] || continue
  two=(mpirun.$implementation -np 2)
  [[ $implementation == openmpi ]] && two+=(--oversubscribe)
  one=(mpirun.$implementation -np 1)
  : >"$work/plain.bw"; : >"$work/traced.bw"; : >"$work/plain.cpu"; : >"$work/traced.cpu"
  for ((round = 0; round < rounds; ++round)); do
    "${two[@]}" "$program" 1 "$windows" | awk '$1 == "window_bandwidth_mbs" {print $2}' >>"$work/plain.bw"
    "$build/bin/collect" -o "$work/w$round.er" --profile mpi -- "${two[@]}" "$program" 1 "$windows" 2>/dev/null |
      awk '$1 == "window_bandwidth_mbs" {print $2}' >>"$work/traced.bw"
    "${one[@]}" "$program" 1 "$windows" | awk '$1 == "self_message_cpu_ns" {print $2}' >>"$work/plain.cpu"
    "$build/bin/collect" -o "$work/s$round.er" --profile mpi -- "${one[@]}" "$program" 1 "$windows" 2>/dev/null |
      awk '$1 == "self_message_cpu_ns" {print $2}' >>"$work/traced.cpu"
    rm -rf "$work/w$round.er" "$work/s$round.er"
  done
  awk -v i="$implementation" -v p="$(median <"$work/plain.bw")" -v t="$(median <"$work/traced.bw")" \
    'BEGIN {printf "%-8s 2 ranks, 1-byte window bandwidth: plain %.3f MB/s, traced %.3f MB/s (%.2fx slower)\n", i, p, t, p / t}'
  awk -v i="$implementation" -v p="$(median <"$work/plain.cpu")" -v t="$(median <"$work/traced.cpu")" \
    'BEGIN {printf "%-8s 1 rank to itself, CPU a message: plain %.0f ns, traced %.0f ns (%.2fx)\n", i, p, t, t / p}'
done
