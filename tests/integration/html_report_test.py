#!/usr/bin/env python3
"""er_html on real experiments of threads_target (clock samples and sync
waits), checked two ways:

  data     the report's data.js against er_print's own JSON (no browser)
  browser  the report in headless Chromium driven by Selenium: no console
           errors, the function table's numbers, sorting and search,
           callers-callees navigation, flame graph zoom, search and hover,
           one timeline lane per thread, annotated source, the differential
           flame graph; a screenshot of each tab is kept in ARTIFACTS.

Exits 77 (skipped) when chromium, chromedriver or selenium are missing.
Usage: html_report_test.py data|browser BIN_DIR TARGET_DIR ARTIFACTS
"""
import json
import os
import sys
import tempfile

from er_test_support import run
from headless_chromium import browser_or_skip


def collect(bin_dir, target_dir, work, name, scale, target="threads_target"):
    run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name, "-p", "on", "-s", "on",
         os.path.join(target_dir, target), scale], cwd=work)
    return os.path.join(work, name)


def er_print_json(bin_dir, experiment, *args):
    return json.loads(run([os.path.join(bin_dir, "er_print"), "--format=json", *args, experiment]).stdout)


def report_data(report):
    with open(os.path.join(report, "data.js")) as f:
        text = f.read()
    prefix = "window.LUMEN_REPORT = "
    assert text.startswith(prefix), text[:80]
    return json.loads(text[len(prefix):].rstrip().rstrip(";"))


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)


def check_data(bin_dir, experiment, report):
    data = report_data(report)
    shown = er_print_json(bin_dir, experiment, "-functions")
    check(data["functions"] == shown, "the report's function table is er_print's -functions")
    threads = er_print_json(bin_dir, experiment, "-thread_list")
    check(len(data["timeline"]["lanes"]) == len(threads["rows"]) == 4, "one timeline lane per thread")
    # The flame graph's stacks add up to <Total> of each metric (named, as
    # some are not in the default list).
    every = ":".join("e." + m["keyword"] for m in data["metrics"])
    named = er_print_json(bin_dir, experiment, "-metrics", every, "-functions")
    total = next(r for r in named["rows"] if r["name"] == "<Total>")
    for i, m in enumerate(data["metrics"]):
        summed = sum(s["v"][i] for s in data["stacks"])
        want = total["values"]["e." + m["keyword"]]
        scale = 1e9 if m["unit"] == "nanoseconds" else 1
        check(abs(summed / scale - want) <= 1e-8 * max(1, want) + 1e-9, f"stacks of {m['keyword']}: {summed} vs {want}")
    # Timeline CPU per lane adds up to the thread's user time.
    for lane in data["timeline"]["lanes"]:
        row = next(r for r in threads["rows"] if r["tid"] in (lane["tid"], str(lane["tid"])))
        cpu = sum(v for _, v in lane["series"].get("clock", []))
        check(abs(cpu / 1e9 - row["values"]["e.totalcpu"]) <= 1e-6, f"lane {lane['tid']} CPU {cpu} vs {row}")
    # Nothing in the report comes from the network.
    for name in os.listdir(report):
        with open(os.path.join(report, name), errors="replace") as f:
            text = f.read()
        for scheme in ("http://", "https://", "//cdn"):
            check(scheme not in text, f"{name} names {scheme}: the report must open without the network")
    # Source files are embedded only when asked for (--sources), and the
    # report says they were left out.
    check(data["sources"] == {} and "er_html --sources" in data.get("sources_left_out", ""),
          "sources are left out unless asked for, and the report says so")
    print("data: the report's data equals er_print's JSON")


def check_browser(bin_dir, experiment, report, compare_report, artifacts):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.action_chains import ActionChains
    driver = browser_or_skip()
    os.makedirs(artifacts, exist_ok=True)
    try:
        def tab(name, directory=report):
            if not driver.current_url.startswith("file://" + os.path.abspath(directory)):
                driver.get("file://" + os.path.abspath(os.path.join(directory, "index.html")))
            driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{name}"]').click()
            return driver.find_element(By.ID, "tab-" + name)

        def shot(name):
            driver.save_screenshot(os.path.join(artifacts, name + ".png"))

        tab("overview")
        check("Totals" in driver.find_element(By.ID, "tab-overview").text, "overview shows totals")
        shot("overview")

        # The function table: every number is er_print's.
        shown = er_print_json(bin_dir, experiment, "-functions")
        section = tab("functions")
        cells = driver.execute_script(
            "return Array.from(document.querySelectorAll('#function-table tr')).slice(1).map(r =>"
            " [r.dataset.name, Object.fromEntries(Array.from(r.querySelectorAll('td[data-spec]')).map(c =>"
            " [c.dataset.spec, parseFloat(c.dataset.value)]))])")
        check(len(cells) == len(shown["rows"]), f"{len(cells)} table rows, er_print has {len(shown['rows'])}")
        for (name, values), row in zip(cells, shown["rows"]):
            check(name == row["name"] and values == row["values"], f"row {name}: {values} vs {row}")
        # Sorting by exclusive user time, then searching.
        driver.find_element(By.CSS_SELECTOR, "#function-table th[title='e.totalcpu']").click()
        order = driver.execute_script("return Array.from(document.querySelectorAll('#function-table tr')).slice(2)"
                                      ".map(r => parseFloat(r.querySelector(\"td[data-spec='e.totalcpu']\").dataset.value))")
        check(order == sorted(order, reverse=True), f"sorted by e.totalcpu: {order}")
        driver.find_element(By.ID, "function-search").send_keys("spin_")
        visible = [r.get_attribute("data-name") for r in section.find_elements(By.CSS_SELECTOR, "tr[data-name]") if r.is_displayed()]
        check(sorted(visible) == ["spin_a", "spin_b", "spin_c", "spin_main"], f"search shows {visible}")
        shot("functions")

        # Callers-callees: a click on a function shows it; a click on its caller goes there.
        section.find_element(By.LINK_TEXT, "spin_b").click()
        view = driver.find_element(By.ID, "callers-view")
        check(view.get_attribute("data-function") == "spin_b", "callers-callees of spin_b")
        caller = view.find_element(By.CSS_SELECTOR, "table.callers a.fn")
        caller_name = caller.text
        caller.click()
        check(driver.find_element(By.ID, "callers-view").get_attribute("data-function") == caller_name,
              f"navigated to the caller {caller_name}")
        shot("callers")

        # Flame graph: hover, zoom and search.
        for kind in ("flame", "icicle"):
            tab(kind)
            graph = driver.find_element(By.ID, kind)
            frame = graph.find_element(By.CSS_SELECTOR, '.frame[data-name="spin_b"]')
            ActionChains(driver).move_to_element(frame).perform()
            info = driver.find_element(By.ID, kind + "-info").text
            check(info.startswith("spin_b: ") and "%" in info, f"hover on spin_b: {info!r}")
            frame.click()
            check(graph.get_attribute("data-zoomed") == "spin_b", "clicking spin_b zooms to it")
            zoomed = graph.find_element(By.CSS_SELECTOR, '.frame[data-name="spin_b"]:not(.ancestor)')
            check(zoomed.value_of_css_property("width") == graph.value_of_css_property("width"),
                  "the zoomed frame spans the graph")
            driver.find_element(By.ID, kind + "-reset").click()
            driver.find_element(By.ID, kind + "-search").send_keys("spin_")
            matches = [f.get_attribute("data-name") for f in graph.find_elements(By.CSS_SELECTOR, ".frame.match")]
            check(set(matches) == {"spin_a", "spin_b", "spin_c", "spin_main"}, f"search highlights {matches}")
            check("Matched:" in driver.find_element(By.ID, kind + "-info").text, "search gives the matched share")
            shot(kind)

        tab("timeline")
        lanes = driver.find_elements(By.CSS_SELECTOR, "#timeline .lane")
        threads = er_print_json(bin_dir, experiment, "-thread_list")["rows"]
        check(len(lanes) == len(threads) == 4, f"{len(lanes)} lanes for {len(threads)} threads")
        check({int(l.get_attribute("data-tid")) for l in lanes} == {int(r["tid"]) for r in threads}, "a lane per thread id")
        shot("timeline")

        tab("source")
        from selenium.webdriver.support.ui import Select
        Select(driver.find_element(By.ID, "source-function")).select_by_value("spin_b")
        # The same lines as er_print -source, the same ones marked hot.
        source = er_print_json(bin_dir, experiment, "-source", "spin_b")["rows"]
        rows = driver.find_elements(By.CSS_SELECTOR, "#source-view tr")[1:]
        check(len(rows) == len(source), f"{len(rows)} source rows, er_print has {len(source)}")
        hot = [r.find_element(By.CSS_SELECTOR, "td.line").text for r in rows if "hot" in r.get_attribute("class")]
        marked = [str(r["line"]) for r in source if r.get("marker", "").strip()]
        check(hot == marked, f"hot lines {hot}, er_print marks {marked}")
        shot("source")

        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check(not errors, f"console errors: {errors}")

        section = tab("compare", compare_report)
        frames = section.find_elements(By.CSS_SELECTOR, "#compare .frame")
        check(len(frames) > 0, "a differential flame graph")
        removed = [f for f in frames if f.get_attribute("data-name") == "spin_b"]
        check(removed and "removed: was" in removed[0].get_attribute("title"),
              "a stack only the base experiment has is drawn as removed time")
        check(driver.find_element(By.ID, "compare-button").is_displayed(), "compare tab shown")
        shot("compare")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check(not errors, f"console errors: {errors}")
    finally:
        driver.quit()
    print(f"browser: every check passed; screenshots in {artifacts}")


def main():
    mode = sys.argv[1]
    bin_dir, target_dir, artifacts = (os.path.abspath(a) for a in sys.argv[2:5])
    if mode == "browser":
        browser_or_skip().quit()  # skip before collecting anything
    with tempfile.TemporaryDirectory() as work:
        experiment = collect(bin_dir, target_dir, work, "threads.er", "0.5")
        report = os.path.join(work, "threads.html")
        if mode == "data":
            run([os.path.join(bin_dir, "er_html"), "-o", report, experiment])
            check_data(bin_dir, experiment, report)
            return
        run([os.path.join(bin_dir, "er_html"), "--sources", "-o", report, experiment])
        # Compared with another program: stacks only the base has (threads_target's
        # spin_*) are time removed and must be drawn too.
        other = collect(bin_dir, target_dir, work, "other.er", "1.0", "recursive_target")
        compare_report = os.path.join(work, "compare.html")
        run([os.path.join(bin_dir, "er_html"), "-o", compare_report, "-compare", experiment, other])
        check_browser(bin_dir, experiment, report, compare_report, artifacts)


if __name__ == "__main__":
    main()
