#!/usr/bin/env bash
# Installs what only the tests need, from Debian's packages: go tool pprof
# reads the pprof export back, headless Chromium driven by Selenium opens
# er_html's report, and man renders the manual pages. Building and the
# demo do not need them.
set -euo pipefail
packages=(
  golang-go                              # go tool pprof: reads er_print -export pprof back
  chromium chromium-driver               # er_html's report in a real browser, headless
  python3 python3-selenium               # drives the browser from the report's tests
  man-db                                 # man -l renders the manual pages in tests/docs (groff, col)
)
"$(dirname "$0")/install-packages.sh" "${packages[@]}"
