#!/usr/bin/env bash
# The main job on the shipped demo: install, build, collect an experiment of
# the demo program, and print its functions and callers-callees.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-dependencies.sh"
"$root/tools/build.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/build/bin/collect" -d "$work" -o demo.er "$root/build/bin/lumen_demo"
"$root/build/bin/er_print" -header -limit 12 -functions -limit 4 -callers-callees "$work/demo.er"
