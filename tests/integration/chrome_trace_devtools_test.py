#!/usr/bin/env python3
"""er_print -export chrome read by Chromium's own trace importer: the trace
engine of DevTools' Performance panel (devtools://devtools/bundled, shipped
inside the chromium package), on a real experiment with traced calls of
several threads (sync_target under -p on -s all), against er_print's own
-event_list of the same experiment:

  - every thread that made a traced call is one of the engine's threads,
    named as er_print numbers it ("Thread N (tid)");
  - on each thread, the engine's complete events are the thread's traced
    calls er_print lists, one for one: the same function, the same start
    and the same duration to the nanosecond (the trace's microseconds have
    three decimals).

Exits 77 (skipped) when chromium, chromedriver or selenium are missing.
Usage: chrome_trace_devtools_test.py BIN_DIR SYNC_TARGET
"""
import collections
import json
import os
import sys
import tempfile

from er_test_support import check, run
from headless_chromium import browser_or_skip

ENGINE = "devtools://devtools/bundled/trace_app.html"

# The trace parsed by the engine DevTools draws the Performance panel from;
# each thread's name and its complete events.
PARSE = """
const [trace, done] = arguments;
(async () => {
  try {
    const Trace = await import('./models/trace/trace.js');
    const model = Trace.TraceModel.Model.createWithAllHandlers();
    await model.parse(trace.traceEvents, {isFreshRecording: false});
    const threads = [];
    for (const [pid, process] of model.parsedTrace(0).data.Renderer.processes)
      for (const [tid, thread] of process.threads)
        threads.push({pid, tid, name: thread.name,
                      calls: thread.entries.filter(e => e.ph === 'X').map(e => [e.name, e.cat, e.ts, e.dur])});
    done({threads});
  } catch (e) {
    done({error: String(e) + '\\n' + e.stack});
  }
})();
"""


def ns(microseconds):
    return round(float(microseconds) * 1000)


def main():
    bin_dir, target = (os.path.abspath(a) for a in sys.argv[1:3])
    er_print = os.path.join(bin_dir, "er_print")
    driver = browser_or_skip()
    try:
        with tempfile.TemporaryDirectory() as work:
            run([os.path.join(bin_dir, "collect"), "-d", work, "-o", "sync.er", "-p", "on", "-s", "all", target, "all"])
            experiment = os.path.join(work, "sync.er")
            trace_file = os.path.join(work, "trace.json")
            run([er_print, "-export", "chrome", trace_file, experiment])
            with open(trace_file) as f:
                trace = json.load(f)
            events = json.loads(run([er_print, "--format=json", "-event_list", "10000000", experiment]).stdout)
            rows = events["tables"][0]["rows"]
            check(events["summary"]["listed"] == events["summary"]["selected"], "every event listed")

            driver.set_script_timeout(120)
            driver.get(ENGINE)
            parsed = driver.execute_async_script(PARSE, trace)
            check("error" not in parsed, f"DevTools' trace engine parses the export: {parsed.get('error')}")
            engine = {int(t["tid"]): t for t in parsed["threads"]}
            categories = {call[1] for t in parsed["threads"] for call in t["calls"]}
            check(categories, f"complete events in the engine's threads: {parsed['threads'][:2]}")

            want = collections.defaultdict(collections.Counter)
            number = {}
            for row in rows:
                if row["data"] not in categories:
                    continue
                tid = int(row["tid"])
                span = round(float(row["span"]) * 1e9)
                want[tid][(row["name"], int(row["tstamp"]) - span, span)] += 1
                number[tid] = row["thread"]
            check(sum(sum(c.values()) for c in want.values()) > 20, f"traced calls in the experiment: {dict(want)}")
            for tid, calls in want.items():
                check(tid in engine, f"thread {tid} ({sum(calls.values())} traced calls) is one of the engine's")
                thread = engine[tid]
                check(thread["name"] == f"Thread {number[tid]} ({tid})", f"thread {tid} named as er_print numbers it: "
                      f"{thread['name']!r}")
                got = collections.Counter((name, ns(ts), ns(dur)) for name, _, ts, dur in thread["calls"])
                check(got == calls, f"thread {tid}: the engine's complete events are er_print's traced calls:\n"
                      f"only the engine's {got - calls}\nonly er_print's {calls - got}")
            for tid, thread in engine.items():
                check(not thread["calls"] or tid in want, f"the engine's thread {tid} has no call er_print lacks")
            total = sum(sum(c.values()) for c in want.values())
            print(f"DevTools' trace engine holds {total} traced calls on {len(want)} threads, each as er_print lists it")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
