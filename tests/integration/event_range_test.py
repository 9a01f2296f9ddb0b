#!/usr/bin/env python3
"""A selection of a stretch of time ("time in A-B", as the analyzer's
timeline brushes it) decodes only the blocks of the data files that hold
events of that time, in -event_list and in every view of the profile, and
shows exactly what a pass over every event shows:

  - on a clock experiment of 300,000 events (threads_target's recording
    scaled by clock_experiment_gen, about 200 blocks in time order) and on
    one with traced calls and off-CPU states of several threads
    (sync_target under -s all), for ranges at the start, middle and end,
    -event_list and -functions equal those of the same range given as
    gprofng's comparisons of TSTAMP (which read only that stretch too) and
    those of a pass over every event (the range as negated comparisons,
    which name no stretch); a range with no event says how many events
    were recorded, as a full pass counts them;
  - in one er_print session, once a range was listed, the second half of
    the clock file is overwritten: the same range lists the same events
    again, given as TSTAMP comparisons too, another early range shows its
    functions (none read those blocks), and a range inside the overwritten
    half says where the file could not be read.

Usage: event_range_test.py BIN_DIR THREADS_TARGET SYNC_TARGET
"""
import json
import os
import re
import subprocess
import sys
import tempfile

from er_test_support import PromptSession, check, run

BLOCK = 1 << 16
HEADER = 16


def listing(er_print, experiment, selection, view=("-event_list", "1000000")):
    out = run([er_print, "--format=json", "-filters", selection, *view, experiment]).stdout
    return json.loads(out)


def ranges_of(er_print, experiment):
    """Three stretches holding events, early, middle and late, as seconds since the start."""
    rows = listing(er_print, experiment, "time >= 0")["tables"][0]["rows"]
    times = sorted(float(row["time"]) for row in rows)
    check(len(times) >= 20, f"events to choose ranges among in {experiment}: {len(times)}")
    at = [times[int(share * (len(times) - 1))] for share in (0.03, 0.08, 0.45, 0.55, 0.9, 0.97)]
    return [(at[0], at[1]), (at[2], at[3]), (at[4], at[5])]


def expect_same_as_a_full_pass(er_print, experiment):
    for begin, end in ranges_of(er_print, experiment):
        by_time = listing(er_print, experiment, f"time in {begin:.9f}-{end:.9f}")
        # The ends are events' own times: rounded to their nanosecond (a
        # truncated 0.031841771 s is 31841770 ns, which leaves them out).
        stamped = f"TSTAMP >= {round(begin * 1e9)} && TSTAMP <= {round(end * 1e9)}"
        every_event = f"!(TSTAMP < {round(begin * 1e9)}) && !(TSTAMP > {round(end * 1e9)})"
        full_pass = listing(er_print, experiment, every_event)
        selected = by_time["summary"]["selected"]
        check(selected > 0, f"events in {begin:.3f}-{end:.3f} s of {experiment}")
        for name, shown in (("time in", by_time), ("TSTAMP", listing(er_print, experiment, stamped))):
            check(shown == full_pass,
                  f"{experiment}, {begin:.3f}-{end:.3f} s, as {name}: the same {shown['summary']['selected']} events "
                  f"as a full pass ({full_pass['summary']['selected']})")
        functions = listing(er_print, experiment, every_event, ["-functions"])
        for selection in (f"time in {begin:.9f}-{end:.9f}", stamped):
            check(listing(er_print, experiment, selection, ["-functions"]) == functions,
                  f"{experiment}, {begin:.3f}-{end:.3f} s, as '{selection}': the functions of a full pass")
        print(f"{os.path.basename(experiment)} {begin:.3f}-{end:.3f} s: {selected} events and their functions, "
              "as a full pass shows them")
    said = [subprocess.run([er_print, "-filters", late, "-functions", experiment], capture_output=True, text=True,
                           timeout=120).stderr
            for late in ("time in 1000-2000", "TSTAMP >= 1000000000000", "!(TSTAMP < 1000000000000)")]
    counted = [re.search(r"leaves none of the (\d+) events", text) for text in said]
    check(None not in counted and len({c.group(1) for c in counted}) == 1,
          f"an empty range counts the events recorded as a full pass does: {said!r}")


def spoil_second_half(data_file):
    """Overwrites the records (not the headers) of the file's second half of blocks; returns its first offset."""
    blocks = os.path.getsize(data_file) // BLOCK
    with open(data_file, "r+b") as f:
        for block in range(blocks // 2, blocks):
            f.seek(block * BLOCK + HEADER)
            f.write(b"\xff" * (BLOCK - HEADER))
    return (blocks // 2) * BLOCK


def main():
    bin_dir, threads_target, sync_target = (os.path.abspath(a) for a in sys.argv[1:4])
    er_print = os.path.join(bin_dir, "er_print")
    collect = os.path.join(bin_dir, "collect")
    with tempfile.TemporaryDirectory() as work:
        run([collect, "-d", work, "-o", "real.er", "-p", "hi", "-A", "off", threads_target, "0.3"])
        large = os.path.join(work, "large.er")
        run([os.path.join(bin_dir, "clock_experiment_gen"), os.path.join(work, "real.er"), large, "300000"])
        run([collect, "-d", work, "-o", "sync.er", "-p", "hi", "-s", "all", sync_target, "all"])
        expect_same_as_a_full_pass(er_print, large)
        expect_same_as_a_full_pass(er_print, os.path.join(work, "sync.er"))

        early, _, late = ranges_of(er_print, large)
        session = PromptSession(er_print, large)
        try:
            session.ask(f"filters time in {early[0]:.9f}-{early[1]:.9f}")
            before, problem = session.ask("event_list 1000000")
            check(problem == "" and "Events selected" in before, f"the early range listed: {problem}")
            profile = os.path.join(large, "profile")
            spoiled_from = spoil_second_half(profile)
            after, problem = session.ask("event_list 1000000")
            check(problem == "", f"the early range read none of the overwritten blocks: {problem}")
            check(after == before, "the early range lists the same events after the second half was overwritten")
            session.ask(f"filters TSTAMP >= {round(early[0] * 1e9)} && TSTAMP <= {round(early[1] * 1e9)}")
            stamped, problem = session.ask("event_list 1000000")
            check(problem == "" and stamped == after,
                  f"the early range as TSTAMP comparisons read none of the overwritten blocks either: {problem}")
            session.ask(f"filters time in {early[1]:.9f}-{(early[1] * 2):.9f}")
            functions, problem = session.ask("functions")
            check(problem == "" and "<Total>" in functions,
                  f"another early range's functions read none of the overwritten blocks: {problem}")
            session.ask(f"filters time in {late[0]:.9f}-{late[1]:.9f}")
            _, problem = session.ask("event_list 1000000")
            where = re.search(r"profile at offset (\d+)", problem)
            check(where is not None and int(where.group(1)) >= spoiled_from,
                  f"a late range says where the overwritten file could not be read: {problem!r}")
        finally:
            session.close()
        print(f"the early range read only its blocks; the late one met the overwritten half at offset {where.group(1)}")


if __name__ == "__main__":
    main()
