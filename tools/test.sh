#!/usr/bin/env bash
# Install, build, and run every test (unit and integration) with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-dependencies.sh"
"$root/tools/install-test-dependencies.sh"
"$root/tools/build.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)"
