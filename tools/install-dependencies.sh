#!/usr/bin/env bash
# Installs what building lumen's commands, its runtime and its default
# plugins needs, from Debian's packages: all that tools/demo.sh needs.
# The plugins for MPI, Java, hardware counters and LLVM's OpenMP need more
# (tools/install-plugin-dependencies.sh); the tests more again
# (tools/install-test-dependencies.sh).
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libboost-dev libboost-filesystem-dev   # Boost.DLL (plugin loading)
  libyaml-cpp-dev                        # profiles
  libunwind-dev                          # call stacks in the target
  libdw-dev libelf-dev                   # symbols and lines (elfutils)
  nlohmann-json3-dev                     # er_html's report data
  libcapstone-dev                        # er_print -disasm (disassembler)
  libreadline-dev                        # er_print's prompt: line editing and history
  libprotobuf-dev protobuf-compiler      # er_print -export pprof: profile.proto
  zlib1g-dev                             # er_print -export pprof: gzip
  libzstd-dev                            # heap tracing: compressed data files
  libcpp-httplib-dev                     # analyzer: its HTTP server
)
"$(dirname "$0")/install-packages.sh" "${packages[@]}"
