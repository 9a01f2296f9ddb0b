#!/usr/bin/env bash
# The manual pages render without warnings and document every option of
# `collect --help` and every command of `er_print -help`, so a flag or view
# added without its page fails here.
# Usage: man_pages_test.sh BIN_DIR MAN_DIR
set -uo pipefail
bin=$1 man_dir=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for command in collect er_print er_archive er_rm er_mv er_cp er_otf2 analyzer er_kernel; do
  page=$man_dir/$command.1
  [[ -f $page ]] || { fail "$command has no page $page"; continue; }
  warnings=$(MANWIDTH=80 man --warnings -l -Tutf8 "$page" 2>&1 >/dev/null)
  [[ -z $warnings ]] || fail "$page: $warnings"
  rendered=$(MANWIDTH=200 man -l "$page" 2>/dev/null | col -b)
  [[ $rendered == *NAME* && $rendered == *SYNOPSIS* && $rendered == *DESCRIPTION* ]] ||
    fail "$page lacks NAME, SYNOPSIS or DESCRIPTION"
  declare -g "rendered_$command=$rendered"
done

# Each option is shown at the start of an indented line of collect's help.
mapfile -t options < <("$bin/collect" --help 2>&1 | grep -oE '^ +-[-a-zA-Z]+' | tr -d ' ' | sort -u)
((${#options[@]} > 15)) || fail "collect --help listed only ${#options[@]} options"
for option in "${options[@]}"; do
  grep -qE "(^|[[:space:]])$option([[:space:],]|$)" <<<"$rendered_collect" || fail "collect.1 does not document $option"
done

mapfile -t commands < <("$bin/er_print" -help 2>&1 | awk '/^  [a-z]/ { print $1 }' | sort -u)
((${#commands[@]} > 30)) || fail "er_print -help listed only ${#commands[@]} commands"
for command in "${commands[@]}"; do
  grep -qE "(^|[[:space:]])$command([[:space:],]|$)" <<<"$rendered_er_print" || fail "er_print.1 does not document $command"
done

mapfile -t kernel_options < <("$bin/er_kernel" -h 2>&1 | grep -oE '^ +-[a-zA-Z]+' | tr -d ' ' | sort -u)
((${#kernel_options[@]} >= 6)) || fail "er_kernel -h listed only ${#kernel_options[@]} options"
for option in "${kernel_options[@]}"; do
  grep -qE "(^|[[:space:]])$option([[:space:],]|$)" <<<"$rendered_er_kernel" || fail "er_kernel.1 does not document $option"
done

echo "checked ${#options[@]} collect options and ${#commands[@]} er_print commands"
((failures == 0))
