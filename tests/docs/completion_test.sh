#!/usr/bin/env bash
# Bash completion of collect and er_print, driven as bash drives it: the
# line and cursor in COMP_LINE/COMP_POINT, the words split at bash's word
# breaks, and the answer read from COMPREPLY.
# Usage: completion_test.sh BIN_DIR COMPLETION_SCRIPT WORK_DIR
set -uo pipefail
bin=$(cd "$1" && pwd) script=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") work=$3
export PATH=$bin:$PATH
source "$script"
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Completes LINE (cursor at its end) with FUNCTION; prints the candidates.
complete_line() {
  local line=$1 function=$2
  COMP_LINE=$line
  COMP_POINT=${#line}
  # Words as bash splits them: at blanks, and at ':' and '=' kept as words.
  local spaced=${line//:/ : }
  spaced=${spaced//=/ = }
  read -ra COMP_WORDS <<<"$spaced"
  [[ $line == *[[:space:]] ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  "$function"
  printf '%s\n' "${COMPREPLY[@]}"
}

expect() {  # expect WHAT LINE FUNCTION CANDIDATE...
  local what=$1 line=$2 function=$3; shift 3
  local got
  got=$(complete_line "$line" "$function")
  for wanted in "$@"; do
    grep -qxF -- "$wanted" <<<"$got" || fail "$what: '$line' does not offer '$wanted' (got: $(echo $got))"
  done
}

expect_not() {  # expect_not WHAT LINE FUNCTION CANDIDATE...
  local what=$1 line=$2 function=$3; shift 3
  local got
  got=$(complete_line "$line" "$function")
  for unwanted in "$@"; do
    grep -qxF -- "$unwanted" <<<"$got" && fail "$what: '$line' offers '$unwanted'"
  done
}

rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
collect -o run.er -p on true >/dev/null 2>&1 || fail "collect could not record run.er"

expect "collect options" "collect --pro" _lumen_collect --profile
expect "collect options" "collect -" _lumen_collect -p -H -s -o --plugin
expect "clock values" "collect -p " _lumen_collect on off hi lo
expect "kernel frames values" "collect -p hi -k " _lumen_collect on off
expect "a program after -k and -states values" "collect -k off -states on tru" _lumen_collect true
expect "sync values" "collect -s c" _lumen_collect calibrate
sleep 30 & sleeper=$!
expect "running processes to attach to" "collect -P $sleeper" _lumen_collect "$sleeper"
kill "$sleeper"
expect "shipped profiles" "collect --profile " _lumen_collect default mpi heap sync
expect "the program's own words" "collect -p on true" _lumen_collect true
expect_not "the program's own words" "collect -p on ls -" _lumen_collect -p -H

expect "er_print commands" "er_print -fun" _lumen_er_print -functions
expect "er_print commands" "er_print -callers" _lumen_er_print -callers-callees
mapfile -t commands < <(er_print -help 2>&1 | awk '/^  [a-z]/ { print "-" $1 }')
expect "every er_print command" "er_print -" _lumen_er_print "${commands[@]}"
expect "formats" "er_print --format=c" _lumen_er_print csv
expect "view modes" "er_print -viewmode " _lumen_er_print user expert machine
expect "index object types" "er_print -indxobj " _lumen_er_print Threads CPUs Samples Seconds
expect "experiments to add" "er_print -add_exp r" _lumen_er_print run.er
expect "experiments" "er_print run" _lumen_er_print run.er
expect "metrics of the experiment" "er_print run.er -metrics e.us" _lumen_er_print e.user
expect "metrics as shares" "er_print run.er -metrics e.%" _lumen_er_print e.%totalcpu e.%user e.%system
expect "a metric spec's next metric" "er_print run.er -metrics e.user:i.u" _lumen_er_print i.user
expect "sort keys" "er_print run.er -sort " _lumen_er_print i.totalcpu i.user name

expect "er_kernel options" "er_kernel -" _lumen_er_kernel -p -t -o -d -A -C --
expect "er_kernel rates" "er_kernel -p " _lumen_er_kernel on hi lo
expect "er_kernel archive modes" "er_kernel -t 5 -A " _lumen_er_kernel on off copy
expect "er_kernel's command" "er_kernel -p hi -- er_pri" _lumen_er_kernel er_print
expect "index object types of er_kernel's" "er_print -indxobj P" _lumen_er_print Processes

echo "completion checked"
((failures == 0))
