#!/usr/bin/env python3
"""er_html, the analyzer's page exported with its views, on real
experiments of threads_target (clock samples, heap and sync waits), checked
two ways:

  data     the exported views (data.js) against er_print's own JSON, no
           browser: every tab's view, each plugin's, and the callers-callees
           and disassembly of exactly the N hottest functions; no source
           text unless --sources, and then er_print's; nothing the page
           loads comes from elsewhere
  browser  the export opened from disk in headless Chromium driven by
           Selenium: every tab loads with no console error (a screenshot of
           each is kept in ARTIFACTS); the Functions numbers are er_print's;
           a click on a function opens its callers-callees; the controls
           cannot change settings, and a view the export does not hold says
           how to get it; a compare export shows both experiments' columns

Exits 77 (skipped) when chromium, chromedriver or selenium are missing.
Usage: html_report_test.py data|browser BIN_DIR TARGET_DIR ARTIFACTS
"""
import json
import os
import re
import sys
import tempfile

from er_test_support import check, run
from analyzer_page import console_errors, loaded_count, open_settled, same_numbers, visit_every_tab
from headless_chromium import browser_or_skip

HOTTEST = 5


def collect(bin_dir, target_dir, work, name, scale, target="threads_target"):
    run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name, "-p", "on", "-s", "on", "-H", "on",
         os.path.join(target_dir, target), scale], cwd=work)
    return os.path.join(work, name)


def er_print_json(bin_dir, *args):
    return json.loads(run([os.path.join(bin_dir, "er_print"), "--format=json", *args]).stdout)


def exported(report):
    with open(os.path.join(report, "data.js")) as f:
        text = f.read()
    prefix = "window.LUMEN_EXPORT = "
    check(text.startswith(prefix), text[:80])
    return json.loads(text[len(prefix):].rstrip().rstrip(";"))


def quoted(name):
    """A function's name as the page's command lines quote it (analyzer.js quoted())."""
    return '"' + name.replace('"', "\"'\"'\"") + '"'


def check_data(bin_dir, experiment, report, sources_report):
    data = exported(report)
    views = data["views"]
    for command in ("header", "functions", "calltree", "lines", "pcs", "thread_list", "timeline", "leaks", "heap",
                    "syncobjects"):
        check(command in views and "error" not in views[command], f"the export holds {command}: {views.get(command)}")
        check(views[command]["view"] == er_print_json(bin_dir, "-" + command, experiment),
              f"the export's {command} is er_print's -{command}")
    # The callers-callees and disassembly of exactly the hottest functions.
    functions = er_print_json(bin_dir, "-functions", experiment)["rows"]
    hottest = [r["name"] for r in functions if r["name"] != "<Total>"][:HOTTEST]
    function_views = sorted(k for k in views if k.split(" ")[0] in ("csingle", "disasm", "source"))
    want = sorted([f"csingle {quoted(n)}" for n in hottest] + [f"disasm {quoted(n)}" for n in hottest])
    check(function_views == want, f"the views of the {HOTTEST} hottest functions: {function_views}, want {want}")
    for name in hottest:
        check(views[f"csingle {quoted(name)}"]["view"] == er_print_json(bin_dir, "-csingle", name, experiment),
              f"the export's callers-callees of {name} is er_print's")
        # Without --sources the interleaved lines name their line and file, with no text of it.
        disasm = views[f"disasm {quoted(name)}"]["view"]["rows"]
        want = er_print_json(bin_dir, "-disasm", name, experiment)["rows"]
        check([r["address"] for r in disasm] == [r["address"] for r in want], f"the disassembly of {name}")
        lines = [r["name"] for r in disasm if r["kind"] == "source"]
        check(all(re.fullmatch(r"<line \d+( in [^>]*)?> ", line) for line in lines), f"no source text in {lines[:3]}")
    check(data["about"] == {"experiments": [experiment], "functions": HOTTEST, "sources": False}, f"{data['about']}")
    # With --sources: the annotated source of each, er_print's.
    with_sources = exported(sources_report)["views"]
    for name in ("spin_b", "spin_main"):
        check(with_sources[f"source {quoted(name)}"]["view"] == er_print_json(bin_dir, "-source", name, experiment),
              f"the export's source of {name} is er_print's")
    # The page loads nothing from elsewhere: its scripts and style are the export's own files.
    with open(os.path.join(report, "index.html")) as f:
        page = f.read()
    for reference in re.findall(r'(?:src|href)="([^"]*)"', page):
        check(reference.startswith("data:") or os.path.isfile(os.path.join(report, reference)),
              f"index.html loads {reference}, which is not in the export")
    print(f"data: {len(views)} exported views equal er_print's JSON")


def check_browser(bin_dir, experiment, report, compare_report, base, other, artifacts):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    driver = browser_or_skip()
    os.makedirs(artifacts, exist_ok=True)

    def open_page(directory, hash_part):
        open_settled(driver, "file://" + os.path.abspath(os.path.join(directory, "index.html")) + "#" + hash_part)

    try:
        open_page(report, "tab=overview")
        tabs = [b.get_attribute("data-tab") for b in driver.find_elements(By.CSS_SELECTOR, "#tabs button")]
        for wanted in ("overview", "functions", "callers", "calltree", "disasm", "lines", "pcs", "threads", "timeline",
                       "experiments", "view-leaks", "view-heap", "view-heap_in_use", "view-syncobjects"):
            check(wanted in tabs, f"a tab {wanted} among {tabs}")
        visit_every_tab(driver, artifacts, leave_out=("source",))  # source: only with --sources
        print(f"browser: {len(tabs) - 1} tabs load from disk without console errors")

        # Every number of the function table is er_print's.
        open_page(report, "tab=functions")
        same_numbers(driver, er_print_json(bin_dir, "-functions", experiment), "functions")
        # A click on a function opens its callers and callees.
        before = loaded_count(driver)
        driver.find_element(By.LINK_TEXT, "spin_b").click()
        WebDriverWait(driver, 60).until(lambda d: loaded_count(d) > before and d.find_element(By.ID, "status").text == "")
        check("tab=callers" in driver.current_url and "fn=spin_b" in driver.current_url, driver.current_url)
        check(driver.find_element(By.ID, "view-error").text == "", driver.find_element(By.ID, "view-error").text)
        want = er_print_json(bin_dir, "-csingle", "spin_b", experiment)["rows"][0]
        callers = [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#view tr.caller")]
        check(callers == [c["name"] for c in want["callers"]], f"callers {callers} vs {want['callers']}")

        # The controls show the settings and cannot change them.
        for control in driver.find_elements(By.CSS_SELECTOR, "#controls input, #controls select, #controls button"):
            check(not control.is_enabled(), f"control {control.get_attribute('id')} is disabled in an export")
        # A view the export does not hold (a setting in the URL, a cold
        # function's source) says how to get it.
        for hash_part in ("tab=functions&viewmode=machine", "tab=source&fn=spin_b"):
            open_page(report, hash_part)
            error = driver.find_element(By.ID, "view-error").text
            check("analyzer " + experiment in error, f"{hash_part}: {error!r}")
        check(not console_errors(driver), f"console errors: {console_errors(driver)}")

        # Compare: both experiments' columns, er_print -compare on's numbers.
        open_page(compare_report, "tab=functions")
        same_numbers(driver, er_print_json(bin_dir, "-compare", "on", "-functions", base, other), "compared functions")
        driver.save_screenshot(os.path.join(artifacts, "compare.png"))
        check(not console_errors(driver), f"console errors: {console_errors(driver)}")
    finally:
        driver.quit()
    print(f"browser: every check passed; screenshots in {artifacts}")


def main():
    mode = sys.argv[1]
    bin_dir, target_dir, artifacts = (os.path.abspath(a) for a in sys.argv[2:5])
    if mode == "browser":
        browser_or_skip().quit()  # skip before collecting anything
    er_html = os.path.join(bin_dir, "er_html")
    with tempfile.TemporaryDirectory() as work:
        experiment = collect(bin_dir, target_dir, work, "threads.er", "0.5")
        report = os.path.join(work, "threads.html")
        run([er_html, "--functions", str(HOTTEST), "-o", report, experiment])
        if mode == "data":
            sources_report = os.path.join(work, "sources.html")
            run([er_html, "--sources", "-o", sources_report, experiment])
            check_data(bin_dir, experiment, report, sources_report)
            return
        other = collect(bin_dir, target_dir, work, "other.er", "0.3")
        compare_report = os.path.join(work, "compare.html")
        run([er_html, "-compare", "-o", compare_report, experiment, other])
        check_browser(bin_dir, experiment, report, compare_report, experiment, other, artifacts)


if __name__ == "__main__":
    main()
