#!/usr/bin/env python3
"""The analyzer on an er_kernel experiment (every CPU, one sub-experiment
per process), in headless Chromium: every tab loads without console errors,
the Functions tab shows er_print's numbers, the Timeline tab draws
er_print's -timeline bins, one lane for each thread of every process, and
the Processes index object names the target.

Exits 77 (skipped) when chromium, chromedriver or selenium are missing, or
when this machine does not let the tests sample every CPU (asked of the
kernel directly, not of er_kernel).
Usage: er_kernel_analyzer_test.py BIN_DIR TARGET_DIR ARTIFACTS
"""
import ctypes
import os
import sys
import tempfile

from er_test_support import check, run
from analyzer_page import console_errors, open_settled, same_numbers, timeline_bins, visit_every_tab
from analyzer_test import Analyzer, er_print_json
from headless_chromium import browser_or_skip

SYS_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}


def system_wide_sampling_refused():
    """Why the kernel refuses this process a cpu-clock event on CPU 0 for
    every process, or '' when it allows it."""
    attr = (ctypes.c_uint8 * 128)()
    ctypes.c_uint32.from_buffer(attr, 0).value = 1    # type: PERF_TYPE_SOFTWARE
    ctypes.c_uint32.from_buffer(attr, 4).value = 128  # size
    ctypes.c_uint64.from_buffer(attr, 8).value = 0    # config: PERF_COUNT_SW_CPU_CLOCK
    ctypes.c_uint64.from_buffer(attr, 40).value = 1   # flags: disabled
    number = SYS_PERF_EVENT_OPEN.get(os.uname().machine)
    if number is None:
        return f"no perf_event_open number known for {os.uname().machine}"
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(number, attr, -1, 0, -1, 0)
    if fd < 0:
        return os.strerror(ctypes.get_errno())
    os.close(fd)
    return ""


def main():
    bin_dir, target_dir, artifacts = (os.path.abspath(a) for a in sys.argv[1:4])
    refused = system_wide_sampling_refused()
    if refused:
        print(f"SKIPPED: this machine does not let the tests sample every CPU: {refused}")
        sys.exit(77)
    browser_or_skip().quit()  # skip before recording anything
    os.makedirs(artifacts, exist_ok=True)
    from selenium.webdriver.common.by import By
    with tempfile.TemporaryDirectory() as work:
        target = os.path.join(target_dir, "system_time_target")
        run([os.path.join(bin_dir, "er_kernel"), "-p", "hi", "-A", "off", "-d", work, "-o", "k.er", "--", target],
            cwd=work, env=dict(os.environ, HOME=work, LUMEN_TEST_TRUTH=os.path.join(work, "truth.json")))
        experiment = os.path.join(work, "k.er")
        analyzer = Analyzer(bin_dir, work, experiment)
        driver = browser_or_skip()
        try:
            open_settled(driver, analyzer.url + "#tab=functions")
            same_numbers(driver, er_print_json(bin_dir, work, experiment, "-functions"), "functions")
            open_settled(driver, analyzer.url + "#tab=timeline")
            want = er_print_json(bin_dir, work, experiment, "-timeline")["rows"]
            drawn = timeline_bins(driver)
            check(drawn == [[r["name"], r["thread"], r["start"], r["end"], r["events"]] for r in want],
                  f"the timeline's {len(drawn)} bins are er_print's {len(want)}")
            # Every process on one axis from the recording's start.
            first = min(float(r["start"]) for r in want)
            check(0 <= first < 0.5, f"the timeline starts with the recording, not at boot: first bin at {first} s")
            lanes = {(r["experiment"], r["thread"]) for r in want}
            check(len(lanes) >= 3, f"a lane for each thread of every process: {sorted(lanes)}")
            driver.save_screenshot(os.path.join(artifacts, "er_kernel-timeline.png"))
            tabs = visit_every_tab(driver, artifacts, prefix="er_kernel-")
            check(not console_errors(driver), "no console errors")
            processes = er_print_json(bin_dir, work, experiment, "-indxobj", "Processes")["rows"]
            check(any(r["name"].endswith(f"({target})") for r in processes),
                  f"the Processes index object names the target: {[r['name'] for r in processes]}")
        finally:
            driver.quit()
            analyzer.stop()
    print(f"browser: the er_kernel experiment's {len(tabs)} tabs load; functions and timeline are er_print's")


if __name__ == "__main__":
    main()
