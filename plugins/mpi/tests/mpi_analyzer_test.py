#!/usr/bin/env python3
"""The analyzer's MPI Timeline on a real MPI job: mpi_exchange_target under
`collect --profile mpi -- mpirun -np 4`, its page in headless Chromium
driven by Selenium. The MPI Timeline draws a lane per rank, one box per MPI call and
one line per message, as many as er_print's -mpi_timeline lists (which the
MPI tests hold to what each rank counted of itself); every line runs from
its sender's lane to its receiver's, and the lines between each pair of
ranks carry the bytes the sender counted. A job of more calls than the
page draws (MPICH's, which tests its requests tens of thousands of times)
is drawn up to the start of its DRAWN-th call, and says so; its tables list
the first LISTED rows, as the server gives them. The MPI Chart draws each rank's
MPI time as er_print lists it, a sender-by-receiver matrix of the bytes
the senders counted, each function's MPI time, and the messages sent by
size as the ranks counted them. Zoomed in, a button selects the stretch in
view in every tab, each rank's experiment by its own times: -mpi_timeline
under that selection holds the calls that returned in the stretch. No
console errors; screenshots are kept in ARTIFACTS.

Exits 77 (skipped) when chromium, chromedriver or selenium are missing.
Usage: mpi_analyzer_test.py BIN_DIR INTEGRATION_DIR MPIRUN TARGET ARTIFACTS
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

bin_dir, integration_dir, mpirun, target, artifacts = (os.path.abspath(a) for a in sys.argv[1:6])
sys.path.insert(0, integration_dir)
from analyzer_test import Analyzer  # noqa: E402
from er_test_support import check, run  # noqa: E402
from headless_chromium import browser_or_skip  # noqa: E402

RANKS = 4
DRAWN = 20000  # mpi_timeline.js's DRAWN
LISTED = DRAWN + 1  # view_service.h's kPluginRowsListed: the rows of each table the page is given


def main():
    browser_or_skip().quit()  # skip before running anything
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        launcher = [mpirun, "-np", str(RANKS)]
        if mpirun.endswith("openmpi"):
            launcher[1:1] = ["--allow-run-as-root", "--oversubscribe"]
        run([os.path.join(bin_dir, "collect"), "-o", "mpi.er", "-d", work, "--profile", "mpi", "--", *launcher,
             target, work], cwd=work)
        experiment = os.path.join(work, "mpi.er")
        truth = [json.load(open(os.path.join(work, f"rank{r}.json"))) for r in range(RANKS)]
        sent = collections.Counter()
        for rank in truth:
            for to, figures in rank["sent_to"].items():
                sent[(rank["rank"], int(to))] += figures["bytes"]
        listed = json.loads(run([os.path.join(bin_dir, "er_print"), "-format", "json", "-mpi_timeline", experiment],
                                cwd=work).stdout)
        call_rows, message_rows = ([t for t in listed["tables"] if t["title"].startswith(title)][0]["rows"]
                                   for title in ("MPI calls in time", "Messages from the send"))
        calls, messages = len(call_rows), len(message_rows)
        check(messages == sum(f["messages"] for r in truth for f in r["sent_to"].values()),
              f"er_print lists {messages} messages, the ranks counted others")
        starts = sorted(r["values"]["start"] for r in call_rows)
        cutoff = starts[DRAWN] if calls > DRAWN else float("inf")
        drawn_calls = sum(1 for start in starts if start < cutoff)
        drawn_messages = [r for r in message_rows if r["values"]["sent"] < cutoff]
        drawn_sent = collections.Counter()
        for r in drawn_messages:
            drawn_sent[(r["values"]["sender"], r["values"]["receiver"])] += r["values"]["bytes"]
        if calls <= DRAWN:
            check(drawn_sent == sent, f"er_print's bytes per pair {dict(drawn_sent)} are the senders' {dict(sent)}")
        analyzer = Analyzer(bin_dir, work, experiment)
        driver = browser_or_skip()
        try:
            driver.get(analyzer.url + "#tab=view-mpi_timeline")
            WebDriverWait(driver, 60).until(
                lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == "view-mpi_timeline"
                and d.find_element(By.ID, "status").text == "")
            check(driver.find_element(By.ID, "view-error").text == "", "the MPI Timeline tab shows no error")
            tab = driver.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="view-mpi_timeline"]')
            check(tab.text == "MPI Timeline", f"the tab is named MPI Timeline: {tab.text!r}")
            lanes = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "svg.mpi-timeline .lane-label")]
            check(lanes == [f"rank {r}" for r in range(RANKS)], f"a lane per rank: {lanes}")
            boxes = driver.find_elements(By.CSS_SELECTOR, "svg.mpi-timeline rect.mpi-call")
            check(len(boxes) == drawn_calls, f"{len(boxes)} call boxes drawn, of {calls} er_print lists "
                  f"{drawn_calls} before {cutoff} s")
            caption = driver.find_element(By.CSS_SELECTOR, "#view .mpi-timeline-box").text
            check((f"the first {DRAWN} of {calls} calls" in caption) == (calls > DRAWN),
                  f"the caption says whether all {calls} calls are drawn: {caption!r}")
            lines = driver.execute_script(
                "return [...document.querySelectorAll('svg.mpi-timeline line.mpi-message')].map((l) => ["
                "+l.dataset.sender, +l.dataset.receiver, +l.dataset.bytes, +l.getAttribute('y1'),"
                "+l.getAttribute('y2')])")
            check(len(lines) == len(drawn_messages),
                  f"{len(lines)} message lines drawn, er_print lists {len(drawn_messages)} sent before {cutoff} s")
            drawn = collections.Counter()
            lane_y = {}
            for sender, receiver, size, y1, y2 in lines:
                drawn[(sender, receiver)] += size
                check(lane_y.setdefault(sender, y1) == y1 and lane_y.setdefault(receiver, y2) == y2,
                      f"a message from rank {sender} to rank {receiver} runs between their lanes")
            check(len(set(lane_y.values())) == len(lane_y), f"each rank's lane apart: {lane_y}")
            check(drawn == drawn_sent, f"bytes drawn per sender and receiver {dict(drawn)} are er_print's "
                  f"{dict(drawn_sent)}")
            # The calls' table below the drawing: a page of rows at first,
            # the next page at a click, as many in all as er_print lists.
            # The server lists the first LISTED calls of a job of more.
            rows = min(calls, LISTED)
            paged = "#view table.metric-table[data-rows='%d']" % rows
            table = driver.find_element(By.CSS_SELECTOR, paged)
            page = 2000  # render.js's TABLE_PAGE
            shown = lambda: len(table.find_elements(By.CSS_SELECTOR, "tr[data-name]"))
            check(shown() == min(rows, page), f"the calls' table shows {shown()} rows of {rows} at first")
            if rows > page:
                table.find_element(By.XPATH, "../p[@class='more-rows']/button[@class='show-more']").click()
                check(shown() == min(rows, 2 * page), f"a click shows {shown()} rows of {rows}")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"console errors: {errors}")
            driver.save_screenshot(os.path.join(artifacts, "mpi-timeline.png"))

            # The MPI Chart: each rank's MPI time as er_print's -mpi_ranks
            # gives it, and a cell per sender and receiver holding the bytes
            # the sender counted.
            ranks_view = json.loads(run([os.path.join(bin_dir, "er_print"), "-format", "json", "-mpi_ranks",
                                         experiment], cwd=work).stdout)
            driver.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="mpi-chart"]').click()
            WebDriverWait(driver, 60).until(
                lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == "mpi-chart"
                and d.find_element(By.ID, "status").text == "")
            bars = driver.execute_script(
                "return [...document.querySelectorAll('svg.mpi-chart-time rect.rank-bar')].map((b) => "
                "[b.dataset.name, +b.dataset.value])")
            want = [[r["name"], r["values"]["mpitime"]] for r in ranks_view["tables"][0]["rows"]]
            check(bars == want, f"a bar per rank with er_print's MPI time: {bars} vs {want}")
            cells = driver.execute_script(
                "return [...document.querySelectorAll('svg.mpi-chart-matrix rect.matrix-cell')].map((c) => "
                "[c.dataset.sender, c.dataset.receiver, +c.dataset.bytes])")
            charted = collections.Counter()
            for sender, receiver, size in cells:
                if size:
                    charted[(int(sender.split()[-1]), int(receiver.split()[-1]))] += size
            check(charted == sent, f"the matrix's bytes per sender and receiver {dict(charted)} are the senders' "
                  f"{dict(sent)}")
            # A bar per MPI function with -mpi_stats's MPI time, and a bar
            # per size class with the messages the ranks sent of each size.
            stats_view = json.loads(run([os.path.join(bin_dir, "er_print"), "-format", "json", "-mpi_stats",
                                         experiment], cwd=work).stdout)
            bars = driver.execute_script(
                "return [...document.querySelectorAll('svg.mpi-chart-functions rect.function-bar')].map((b) => "
                "[b.dataset.name, +b.dataset.value])")
            want = [[r["name"], r["values"]["mpitime"]] for r in stats_view["tables"][0]["rows"]]
            check(bars == want, f"a bar per MPI function with er_print's MPI time: {bars} vs {want}")
            sized = collections.Counter()
            for rank in truth:
                for size, count in rank["sent_sizes"].items():
                    sized[int(size)] += count
            size_rows = [t for t in json.loads(run([os.path.join(bin_dir, "er_print"), "-format", "json",
                                                     "-mpi_messages", experiment], cwd=work).stdout)["tables"]
                         if t["title"] == "Messages sent by size"][0]["rows"]
            check(sum(r["values"]["messages"] for r in size_rows) == sum(sized.values()) and
                  sum(r["values"]["bytes"] for r in size_rows) == sum(s * c for s, c in sized.items()),
                  f"er_print's messages by size {size_rows} are the {sum(sized.values())} the ranks sent")
            bars = driver.execute_script(
                "return [...document.querySelectorAll('svg.mpi-chart-sizes rect.size-bar')].map((b) => "
                "[b.dataset.name, +b.dataset.value])")
            want = [[r["name"], r["values"]["messages"]] for r in size_rows]
            check(bars == want, f"a bar per size class with its messages: {bars} vs {want}")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"console errors on the MPI Chart: {errors}")
            driver.save_screenshot(os.path.join(artifacts, "mpi-chart.png"))
            stretch = select_stretch(driver, call_rows, experiment, work)
        finally:
            driver.quit()
            analyzer.stop()
    print(f"mpi analyzer: {drawn_calls} of {calls} calls and {len(drawn_messages)} of {messages} messages drawn on "
          f"{RANKS} lanes, as er_print lists them; {stretch}")


def select_stretch(driver, call_rows, experiment, work):
    """Zooms the MPI Timeline in on its middle and selects the stretch in
    view: every tab's selection is then each rank's experiment over that
    stretch, and -mpi_timeline under it holds the calls that returned in it
    (a call counts by its return), within a microsecond of either end."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    driver.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="view-mpi_timeline"]').click()
    WebDriverWait(driver, 60).until(
        lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == "view-mpi_timeline"
        and d.find_element(By.ID, "status").text == "")
    button = driver.find_element(By.CSS_SELECTOR, "button.mpi-select-stretch")
    span = float(button.get_attribute("data-to"))  # the whole drawing at first
    ends = [r["values"]["start"] + r["values"]["duration"] for r in call_rows]
    middle = sorted(t for t in ends if t < span)[len([t for t in ends if t < span]) // 2]
    # The wheel over the middle call's return, in the drawing's coordinates
    # (mpi_timeline.js: 80 units of labels, 1200 of time, 10 of margin).
    driver.execute_script(
        "const svg = document.querySelector('svg.mpi-timeline'); const box = svg.getBoundingClientRect();"
        "const x = box.left + box.width * (80 + 1200 * arguments[0]) / 1290;"
        "for (let i = 0; i < 3; ++i) svg.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, bubbles: true,"
        " cancelable: true, clientX: x, clientY: box.top + box.height / 2}));", middle / span)
    low, high = float(button.get_attribute("data-from")), float(button.get_attribute("data-to"))
    check(0 <= low < middle < high and high - low < span / 2, f"the wheel zoomed in on {middle} s: {low}-{high} s "
          f"of {span} s")
    surely = sum(1 for t in ends if low + 1e-6 < t < high - 1e-6)
    maybe = sum(1 for t in ends if low - 1e-6 <= t <= high + 1e-6)
    check(surely > 0, f"calls return in {low}-{high} s")
    before = driver.execute_script("return location.hash")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click();", button)
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return location.hash") != before and d.find_element(By.ID, "status").text == ""
        and d.find_element(By.ID, "view").get_attribute("data-tab") == "view-mpi_timeline")
    check(driver.find_element(By.ID, "view-error").text == "", "the stretch's MPI Timeline shows no error")
    selection = driver.execute_script("return new URLSearchParams(location.hash.slice(1)).get('filters')")
    check(selection and "EXPID == " in selection, f"the page selects each rank's experiment: {selection!r}")
    kept = json.loads(run([os.path.join(bin_dir, "er_print"), "-format", "json", "-filters", selection,
                           "-mpi_timeline", experiment], cwd=work).stdout)
    got = len([t for t in kept["tables"] if t["title"].startswith("MPI calls in time")][0]["rows"])
    check(surely <= got <= maybe, f"the stretch {low}-{high} s holds {got} calls, of which {surely} to {maybe} "
          "returned in it")
    boxes = driver.find_elements(By.CSS_SELECTOR, "svg.mpi-timeline rect.mpi-call")
    check(len(boxes) == min(got, DRAWN), f"the page draws the stretch's {got} calls: {len(boxes)}")
    driver.save_screenshot(os.path.join(artifacts, "mpi-timeline-stretch.png"))
    return f"the stretch {low:.6f}-{high:.6f} s selected holds {got} calls"


if __name__ == "__main__":
    main()
