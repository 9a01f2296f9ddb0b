#!/usr/bin/env bash
# Installs what only the tests and benchmarks need, from Debian's packages
# (beyond tools/install-dependencies.sh and install-plugin-dependencies.sh).
# Building lumen and the demo do not need them.
set -euo pipefail
packages=(
  libgtest-dev libgmock-dev              # tests
  libbenchmark-dev                       # benchmarks
  python3                                # the report's and exports' tests
  gfortran                               # the collector API's Fortran names, tested from a Fortran program
  clang libclang-rt-14-dev               # the experiment reader's libFuzzer target; libomp programs
  llvm                                   # llvm-symbolizer: inline chains are compared with its reading
  libc6-dbg                              # glibc's and ld.so's own names (allocate_dtv), which heap truths name
  heaptrack zstd time                    # heap tracing: the tool compared with (its data file read with zstd), CPU times
  strace                                 # counts the files a session of views opens
  iproute2                               # ip: the hosts tools/test-hosts.sh makes for MPI jobs across hosts
  openssh-server openssh-client          # each such host's sshd, which launchers reach as on a cluster
  golang-go                              # go tool pprof: reads er_print -export pprof back
  chromium chromium-driver               # er_html's report in a real browser, headless
  python3-selenium                       # drives the browser from the report's tests
  nodejs                                 # with npm: speedscope (MIT), the app a test opens its export in
  man-db                                 # man -l renders the manual pages in tests/docs (groff, col)
)
# Node.js from elsewhere (NodeSource) brings its own npm and conflicts with Debian's.
command -v npm >/dev/null || packages+=(npm)
"$(dirname "$0")/install-packages.sh" "${packages[@]}"
