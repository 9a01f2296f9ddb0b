#!/usr/bin/env bash
# Install, build, and run every test (unit and integration) with ctest:
# every plugin is built (a missing library is an error here, not a plugin
# left out), with the tests and the benchmarks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-dependencies.sh"
"$root/tools/install-plugin-dependencies.sh"
"$root/tools/install-test-dependencies.sh"
"$root/tools/build.sh" -DLUMEN_BUILD_TESTS=ON -DLUMEN_BUILD_BENCHMARKS=ON -DLUMEN_REQUIRED_PLUGINS=all
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"
