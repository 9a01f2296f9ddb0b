#!/usr/bin/env bash
# Configures and builds lumen into build/ (commands in build/bin). Arguments
# are CMake options: tools/test.sh adds the tests, the benchmarks and every
# plugin; without them the commands, the runtime and the plugins whose
# libraries are installed are built, and each plugin left out says why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/build"
log=$root/build/configure.log
if ! cmake -S "$root" -B "$root/build" "$@" >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
grep '^-- Plugin ' "$log" || true
cmake --build "$root/build" -j "$(nproc)"
