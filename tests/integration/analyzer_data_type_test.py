#!/usr/bin/env python3
"""The analyzer and its export on one data type: records an experiment with
`collect -d WORK -o NAME.er COLLECT_ARGS...` ("@WORK@" in an argument stands
for the work directory), then in headless Chromium driven by Selenium, both
on the page the analyzer serves and on er_html's export of it opened from
disk: every tab shows its view with no error and no console error (a
screenshot of each is kept in ARTIFACTS as NAME-TAB.png and
NAME-export-TAB.png), and the Functions numbers are er_print's; with
--bars VIEW=SPEC,..., the bars drawn on VIEW's tab are er_print's rows of
-VIEW split into those metrics. The plugin tests run it on the data types
analyzer_test.py does not record (Java, OpenMP under LLVM's runtime, MPI
under MPICH, I/O).

Exits 77 (skipped) when chromium, chromedriver or selenium are missing.
Usage: analyzer_data_type_test.py BIN_DIR ARTIFACTS [--bars VIEW=SPEC,...] NAME COLLECT_ARGS...
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyzer_page import open_settled, same_bars, same_numbers, visit_every_tab  # noqa: E402
from analyzer_test import Analyzer  # noqa: E402
from er_test_support import check, run  # noqa: E402
from headless_chromium import browser_or_skip  # noqa: E402


def main():
    bin_dir, artifacts = (os.path.abspath(a) for a in sys.argv[1:3])
    bars, rest = None, sys.argv[3:]
    if rest[0] == "--bars":
        view, parts = rest[1].split("=", 1)
        bars, rest = (view, parts.split(",")), rest[2:]
    name, collect_args = rest[0], rest[1:]
    browser_or_skip().quit()  # skip before recording anything
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        args = [a.replace("@WORK@", work) for a in collect_args]
        run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name + ".er", *args], cwd=work)
        experiment = os.path.join(work, name + ".er")
        functions = json.loads(run([os.path.join(bin_dir, "er_print"), "--format=json", "-functions", experiment],
                                   cwd=work).stdout)
        export = os.path.join(work, name + ".html")
        run([os.path.join(bin_dir, "er_html"), "-o", export, experiment], cwd=work)
        analyzer = Analyzer(bin_dir, work, experiment)
        driver = browser_or_skip()

        try:
            for where, url, prefix, leave_out in (
                    ("analyzer", analyzer.url + "#tab=overview", name + "-", ()),
                    ("export", "file://" + os.path.join(export, "index.html") + "#tab=overview", name + "-export-",
                     ("source",))):  # an export holds source only with --sources
                open_settled(driver, url)
                tabs = visit_every_tab(driver, artifacts, prefix, leave_out)
                open_settled(driver, url.replace("#tab=overview", "#tab=functions"))
                same_numbers(driver, functions, f"{where}: functions")
                if bars:
                    open_settled(driver, url.replace("#tab=overview", "#tab=view-" + bars[0]))
                    table = json.loads(run([os.path.join(bin_dir, "er_print"), "--format=json", "-" + bars[0],
                                            experiment], cwd=work).stdout)["tables"][0]
                    check(table["rows"], f"-{bars[0]} has rows to draw")
                    same_bars(driver, table, bars[1], f"{where}: {bars[0]}")
                print(f"{name}, {where}: {len(tabs) - len(leave_out)} tabs load without errors; "
                      f"the functions are er_print's")
        finally:
            driver.quit()
            analyzer.stop()


if __name__ == "__main__":
    main()
