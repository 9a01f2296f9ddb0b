#!/usr/bin/env python3
"""What decoders draw on timelines, on a real OpenMP program traced with
heap tracing (omp_target: four parallel regions of two threads), against
er_print's own figures for the same experiment:

  - OpenMP parallel regions as spans: Chrome's trace has, on each thread
    of the team, one span per region (-omp_preg's regions), and the
    encountering thread's spans last the regions' wall time; speedscope has
    one evented profile of them per thread;
  - heap bytes in use as a level: the highest value of Chrome's counter is
    -heap's peak.

Usage: timeline_export_test.py BIN_DIR OMP_TARGET
"""
import json
import os
import sys
import tempfile

from er_test_support import check, run

SPAN = "OpenMP parallel region"
LEVEL = "Heap bytes in use"


def main():
    bin_dir, target = (os.path.abspath(a) for a in sys.argv[1:3])
    er_print = os.path.join(bin_dir, "er_print")
    with tempfile.TemporaryDirectory() as work:
        run([os.path.join(bin_dir, "collect"), "-d", work, "-o", "omp.er", "-p", "on", "-H", "on", target], cwd=work)
        experiment = os.path.join(work, "omp.er")

        def er_json(*args):
            return json.loads(run([er_print, "--format=json", *args, experiment]).stdout)

        preg = er_json("-omp_preg")
        regions = int(preg["summary"]["regions"])
        sites = preg["tables"][0]["rows"]
        team = int(max(float(r["values"]["team"]) for r in sites))
        wall_s = sum(float(r["values"]["wall"]) for r in sites)
        check(regions == 4 and team == 2, f"omp_target's four regions of two threads: {preg}")
        peak = int(float(er_json("-heap")["summary"]["peak_bytes"]))
        check(peak > 0, "the OpenMP runtime allocates: a peak of bytes in use")
        threads = {int(float(r["tid"])): int(float(r["thread"])) for r in er_json("-thread_list")["rows"]}
        main_tid = next(tid for tid, number in threads.items() if number == 1)

        # Chrome: spans per thread, the level's highest value.
        trace_file = os.path.join(work, "trace.json")
        run([er_print, "-export", "chrome", trace_file, experiment])
        with open(trace_file) as f:
            trace = json.load(f)["traceEvents"]
        spans = {}
        span_us = {}
        level = []
        for e in trace:
            if e["ph"] == "X" and e.get("args", {}).get("timeline") == "span":
                check(e["name"] == SPAN and e["cat"] == "omp", f"a span of the OpenMP plugin: {e}")
                spans[e["tid"]] = spans.get(e["tid"], 0) + 1
                span_us[e["tid"]] = span_us.get(e["tid"], 0.0) + float(e["dur"])
            if e["ph"] == "C" and e["name"] == LEVEL:
                level.append(int(e["args"]["bytes"]))
        check(len(spans) == team, f"spans on {len(spans)} threads, the team has {team}: {spans}")
        check(all(n == regions for n in spans.values()), f"each thread of the team in {regions} regions: {spans}")
        # Durations are written in microseconds with three decimals: 1 ns per span.
        check(abs(span_us[main_tid] / 1e6 - wall_s) <= 1e-6 + 1e-6 * wall_s,
              f"the encountering thread's spans last {span_us[main_tid] / 1e6} s, -omp_preg's wall {wall_s} s")
        check(level and max(level) == peak, f"the counter's highest value {max(level or [0])}, -heap's peak {peak}")
        check(level[-1] >= 0 and min(level) >= 0, "bytes in use never below zero")

        # speedscope: one evented profile of the spans per thread of the team.
        scope_file = os.path.join(work, "profile.speedscope.json")
        run([er_print, "-export", "speedscope", scope_file, experiment])
        with open(scope_file) as f:
            doc = json.load(f)
        frames = doc["shared"]["frames"]
        evented = [p for p in doc["profiles"] if p["type"] == "evented" and p["name"].endswith(SPAN)]
        check(len(evented) == team, f"{len(evented)} evented profiles of regions, the team has {team}")
        for p in evented:
            opened = [e for e in p["events"] if e["type"] == "O"]
            closed = [e for e in p["events"] if e["type"] == "C"]
            check(len(opened) == len(closed) == regions, f"{p['name']}: {len(opened)} regions opened")
            check(all(frames[e["frame"]]["name"] == SPAN for e in opened), "the span's frame is named as the span")
            ats = [e["at"] for e in p["events"]]
            check(ats == sorted(ats), f"{p['name']}: events in time order")

    print(f"timelines: {regions} regions on each of {team} threads, peak {peak} bytes in use, as er_print says")


if __name__ == "__main__":
    main()
