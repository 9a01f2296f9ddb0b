#!/bin/bash
# er_html on a large clock experiment: its time, peak memory and the size of
# the export it writes, beside er_print on the same experiment: one view, the
# timeline (the largest of the views exported), and the views the export
# holds in one session.
# Usage: html_report_speed.sh BUILD_DIR [EVENTS] [SECONDS]
# Records SECONDS of stack_mix_target (collect -p hi -A off), scales the
# recording to EVENTS clock events with clock_experiment_gen (as
# analysis_speed.sh does), then measures each command with /usr/bin/time.
set -euo pipefail
build=$(realpath "${1:?usage: html_report_speed.sh BUILD_DIR [EVENTS] [SECONDS]}")
events=${2:-10000000}
seconds=${3:-20}
work=$(mktemp -d /tmp/html_report_speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

echo "# recording $seconds s of stack_mix_target" >&2
"$build/bin/collect" -d "$work" -o real.er -p hi -A off "$build/bin/stack_mix_target" "$seconds" > /dev/null 2>&1
echo "# scaling the recording to $events events" >&2
"$build/bin/clock_experiment_gen" real.er big.er "$events" >&2

measure() {  # label command...: wall and CPU (user+sys) seconds, peak RSS
  local label=$1
  shift
  /usr/bin/time -o "$work/time" -f '%e %M %U %S' "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r wall rss user sys < "$work/time"
  awk -v l="$label" -v w="$wall" -v r="$rss" -v c="$user" -v s="$sys" 'BEGIN {
    printf "%-34s %8.2f %8.2f %9.1f\n", l, w, c + s, r / 1024 }'
}

printf '%-34s %8s %8s %9s\n' run wall_s cpu_s peak_MiB
measure "er_print -functions" "$build/bin/er_print" -functions big.er
measure "er_print -timeline" "$build/bin/er_print" -timeline big.er
measure "er_print (the export's views)" "$build/bin/er_print" -header -overview -functions -calltree -lines -pcs \
  -thread_list -timeline -exp_list big.er
measure "er_html" "$build/bin/er_html" -o big.html big.er
measure "er_html --sources" "$build/bin/er_html" --sources -o big-sources.html big.er
echo "# export sizes (du -b): data.js, whole export" >&2
for report in big.html big-sources.html; do
  printf '%-20s data.js %10d bytes, export %10d bytes\n' "$report" "$(stat -c %s "$report/data.js")" \
    "$(du -sb "$report" | cut -f1)"
done
du -sh big.er real.er >&2
