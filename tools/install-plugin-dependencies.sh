#!/usr/bin/env bash
# Installs what the plugins beyond the default ones need, from Debian's
# packages; building without them leaves those plugins out and says so.
set -euo pipefail
packages=(
  libopenmpi-dev openmpi-bin             # MPI tracing: collector half for Open MPI
  libmpich-dev mpich                     # MPI tracing: collector half for MPICH
  libotf2-trace-dev otf2-tools           # MPI tracing: OTF2 export (er_otf2), read back with otf2-print
  libpfm4-dev                            # hardware counters: raw PMU event names (collect -h)
  libomp-dev                             # OpenMP tracing of LLVM's libomp: its OMPT header
  openjdk-17-jdk-headless                # Java profiling: jvmti.h for the agent
)
"$(dirname "$0")/install-packages.sh" "${packages[@]}"
