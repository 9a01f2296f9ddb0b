#!/usr/bin/env bash
# Installs what building and testing lumen needs, from Debian's packages.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libboost-dev libboost-filesystem-dev   # Boost.DLL (plugin loading)
  libyaml-cpp-dev                        # profiles
  libunwind-dev                          # call stacks in the target
  libdw-dev libelf-dev                   # symbols and lines (elfutils)
  libgtest-dev libgmock-dev              # tests
  libbenchmark-dev                       # benchmarks
  nlohmann-json3-dev                     # er_html's report data; reading er_print's JSON in tests
  gfortran                               # the collector API's Fortran names, tested from a Fortran program
  libcapstone-dev                        # er_print -disasm (disassembler)
  libreadline-dev                        # er_print's prompt: line editing and history
  clang libclang-rt-14-dev               # the experiment reader's libFuzzer target (tests/fuzz)
  libopenmpi-dev openmpi-bin            # MPI tracing: collector half and tests for Open MPI
  libmpich-dev mpich                    # MPI tracing: collector half and tests for MPICH
  libotf2-trace-dev otf2-tools           # MPI tracing: OTF2 export, read back with otf2-print
  libpfm4-dev                            # hardware counters: raw PMU event names (collect -h)
  libomp-dev                             # OpenMP tracing: LLVM's libomp and its OMPT header, for clang -fopenmp tests
  heaptrack time                         # heap tracing benchmark: the tool compared with, and CPU times
  openjdk-17-jdk-headless                # Java profiling: jvmti.h for the agent, javac and a JVM for its tests
  libprotobuf-dev protobuf-compiler      # er_print -export pprof: profile.proto
  zlib1g-dev                             # er_print -export pprof: gzip
  libzstd-dev                            # heap tracing: compressed data files
)
"$(dirname "$0")/install-packages.sh" "${packages[@]}"
