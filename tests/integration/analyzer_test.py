#!/usr/bin/env python3
"""The analyzer on real experiments: threads_target under clock profiling
with states, heap, sync and I/O tracing, omp_target under OpenMP tracing,
and markup_names_target (a function named as HTML markup), checked two ways:

  http     plain HTTP from Python: requests without the token, with a foreign
           Host or Origin, or not GET are refused (403); each view's JSON is
           er_print -format json's under the same settings; commands that
           write files or open paths are refused; a bad filter is a 400
           naming the setting; source files are read only from the
           experiments and the -setpath/-addpath directories
  browser  the page in headless Chromium driven by Selenium: every tab loads
           without console errors (a screenshot of each is kept in
           ARTIFACTS); the Functions numbers are er_print's, under the
           default settings and after changing view mode and filter; a bad
           filter's error shows at the filter; clicking a function opens its
           callers and callees; markup in names is shown as text

Exits 77 (skipped) in browser mode when chromium, chromedriver or selenium
are missing.
Usage: analyzer_test.py http|browser BIN_DIR TARGET_DIR SOURCE_DIR OMP_TARGET ARTIFACTS
"""
import http.client
import json
import os
import select
import subprocess
import sys
import tempfile
import time
import urllib.parse

from er_test_support import check, run
from analyzer_page import console_errors, same_bars, same_numbers, timeline_bins, visit_every_tab
from headless_chromium import browser_or_skip

MARKUP_FUNCTION = "<img src=x onerror=alert(1)>"


def collect(bin_dir, target_dir, work, name, options, target, *args):
    run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name, *options, os.path.join(target_dir, target), *args],
        cwd=work, env=dict(os.environ, HOME=work))
    return os.path.join(work, name)


def er_print_json(bin_dir, work, experiments, *args):
    """er_print's JSON for `args` on one experiment or a list of them."""
    experiments = [experiments] if isinstance(experiments, str) else experiments
    r = run([os.path.join(bin_dir, "er_print"), "--format=json", *args, *experiments], cwd=work,
            env=dict(os.environ, HOME=work))
    return json.loads(r.stdout)


def er_print_error(bin_dir, work, experiment, *args):
    r = subprocess.run([os.path.join(bin_dir, "er_print"), "--format=json", *args, experiment], cwd=work,
                       env=dict(os.environ, HOME=work), capture_output=True, text=True, timeout=120)
    check(r.returncode != 0, f"er_print {args} fails")
    return r.stderr.strip().removeprefix("er_print: ")


class Analyzer:
    """An analyzer serving `experiments` on a free port, its URL read from
    its first line of output."""

    def __init__(self, bin_dir, work, *arguments):
        self.process = subprocess.Popen([os.path.join(bin_dir, "analyzer"), "--no-browser", "--port", "0", *arguments],
                                        cwd=work, env=dict(os.environ, HOME=work), stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("analyzer: http://127.0.0.1:"):
            self.process.kill()
            sys.exit(f"FAILED: analyzer printed {line!r}, not its URL; stderr: {self.process.stderr.read()}")
        self.url = line.split(" ", 1)[1].strip()
        parts = urllib.parse.urlsplit(self.url)
        self.port = parts.port
        self.token = urllib.parse.parse_qs(parts.query)["token"][0]
        check(len(self.token) == 32 and int(self.token, 16) >= 0, f"a 128-bit token: {self.token}")

    def request(self, path, headers=None, method="GET", host=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.putrequest(method, path, skip_host=True)
        connection.putheader("Host", host or f"127.0.0.1:{self.port}")
        for k, v in (headers or {}).items():
            connection.putheader(k, v)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read().decode()
        connection.close()
        return response, body

    def view(self, command, **settings):
        query = urllib.parse.urlencode({"cmd": command, **settings})
        response, body = self.request("/api/view?" + query, {"X-Lumen-Token": self.token})
        return response.status, json.loads(body)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        check(self.process.returncode == 0, f"analyzer ended with {self.process.returncode} on SIGTERM")


def check_refusals(analyzer):
    token = f"?token={analyzer.token}"
    response, _ = analyzer.request("/" + token)
    check(response.status == 200, f"the page with the token: {response.status}")
    cookie = response.getheader("Set-Cookie", "")
    check(cookie.startswith(f"lumen_analyzer_{analyzer.port}={analyzer.token};") and "HttpOnly" in cookie,
          f"the page sets the token's cookie: {cookie}")
    response, _ = analyzer.request("/", {"Cookie": cookie.split(";")[0]})
    check(response.status == 200, f"the page with the cookie: {response.status}")
    response, _ = analyzer.request("/", {"X-Lumen-Token": analyzer.token})
    check(response.status == 200, f"the page with the token's header: {response.status}")
    refused = {
        "no token": ("/", {}, "GET", None),
        "no token, API": ("/api/view?cmd=functions", {}, "GET", None),
        "no token, a script": ("/assets/analyzer.js", {}, "GET", None),
        "another port's cookie": ("/", {"Cookie": f"lumen_analyzer_{analyzer.port + 1}={analyzer.token}"}, "GET", None),
        "a wrong token": ("/?token=" + "0" * 32, {}, "GET", None),
        "a foreign Host": ("/" + token, {}, "GET", f"attacker.example:{analyzer.port}"),
        "another port in Host": ("/" + token, {}, "GET", f"127.0.0.1:{analyzer.port + 1}"),
        "a foreign Origin": ("/api/view?cmd=functions&token=" + analyzer.token,
                             {"Origin": "http://attacker.example"}, "GET", None),
        "a null Origin": ("/" + token, {"Origin": "null"}, "GET", None),
        "POST": ("/api/view?cmd=functions&token=" + analyzer.token, {"Content-Length": "0"}, "POST", None),
        "PUT": ("/" + token, {"Content-Length": "0"}, "PUT", None),
        "DELETE": ("/" + token, {}, "DELETE", None),
    }
    for what, (path, headers, method, host) in refused.items():
        response, body = analyzer.request(path, headers, method, host)
        check(response.status == 403, f"{what}: {response.status} {body!r}, not 403")
    response, _ = analyzer.request("/" + token, {"Origin": f"http://localhost:{analyzer.port}"},
                                   host=f"localhost:{analyzer.port}")
    check(response.status == 200, f"as localhost, from its own page: {response.status}")
    print(f"http: {len(refused)} kinds of request refused with 403")


def check_port_taken(bin_dir, work, analyzer, experiment):
    # A second server on the same port fails rather than sharing it.
    r = subprocess.run([os.path.join(bin_dir, "analyzer"), "--no-browser", "--port", str(analyzer.port), experiment],
                       cwd=work, capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and f"cannot listen on 127.0.0.1:{analyzer.port}" in r.stderr and r.stdout == "",
          f"a second analyzer on port {analyzer.port}: {r.returncode} {r.stdout!r} {r.stderr!r}")
    response, _ = analyzer.request("/?token=" + analyzer.token)
    check(response.status == 200, "the first still answers")


def check_views(bin_dir, work, analyzer, experiment):
    # Each view is er_print's JSON under the same settings.
    cases = [
        ("functions", {}, ["-functions"]),
        ("functions", {"viewmode": "machine"}, ["-viewmode", "machine", "-functions"]),
        ("functions", {"filters": "thread in 2-3"}, ["-filters", "thread in 2-3", "-functions"]),
        ("functions", {"metrics": "e.totalcpu:i.totalcpu:e.heapallocbytes:name", "sort": "i.totalcpu"},
         ["-metrics", "e.totalcpu:i.totalcpu:e.heapallocbytes:name", "-sort", "i.totalcpu", "-functions"]),
        ("functions", {}, ["-functions"]),  # the defaults again, after other settings
        ("calltree", {}, ["-calltree"]),
        ("csingle spin_b", {}, ["-csingle", "spin_b"]),
        ("lines", {"viewmode": "expert"}, ["-viewmode", "expert", "-lines"]),
        ("pcs", {}, ["-pcs"]),
        ("thread_list", {"threads": "1,3"}, ["-thread_select", "1,3", "-thread_list"]),
        ("overview", {}, ["-overview"]),
        ("exp_list", {}, ["-exp_list"]),
        ("metric_list", {}, ["-metric_list"]),
        ("leaks", {}, ["-leaks"]),
        ("heap", {}, ["-heap"]),
        ("iostat", {}, ["-iostat"]),
        ("syncobjects", {}, ["-syncobjects"]),
    ]
    for command, settings, flags in cases:
        status, answer = analyzer.view(command, **settings)
        check(status == 200, f"{command} {settings}: {status} {answer}")
        want = er_print_json(bin_dir, work, experiment, *flags)
        check(answer["view"] == want, f"{command} {settings} is er_print's {flags}:\n{str(answer['view'])[:1500]}\n"
                                      f"vs\n{str(want)[:1500]}")
    print(f"http: {len(cases)} views equal er_print's JSON")

    # What writes files or opens paths is refused, and does nothing.
    target = os.path.join(work, "written.txt")
    for command in (f"outfile {target}", f"appendfile {target}", f"export folded {target}", f"open_exp {experiment}",
                    f"add_exp {experiment}", f"script {target}", "setpath /", "addpath /", "pathmap / /tmp",
                    "quit", "drop_exp 1"):
        status, answer = analyzer.view(command)
        check(status == 400 and "not offered" in answer["error"], f"{command}: {status} {answer}")
        check(not os.path.exists(target), f"{command} wrote {target}")
    status, answer = analyzer.view("functions")
    check(status == 200 and answer["view"] == er_print_json(bin_dir, work, experiment, "-functions"),
          "the session is as it was after the refusals")

    # A bad filter: er_print's message, naming the setting, and the view
    # after it is as before.
    for bad in ("thread in zebra", "function == no_such_function"):
        status, answer = analyzer.view("functions", filters=bad)
        message = er_print_error(bin_dir, work, experiment, "-filters", bad, "-functions")
        check(status == 400 and answer == {"error": message, "setting": "filters"}, f"filter {bad}: {status} {answer}")
    status, answer = analyzer.view("functions", metrics="e.nosuchmetric")
    check(status == 400 and answer.get("setting") == "metrics", f"a bad metric: {status} {answer}")
    print("http: commands that write or open are refused; bad settings are 400s naming them")


def check_browser_launch(bin_dir, work, experiment):
    # xdg-open is started with the URL where a desktop is named, and not
    # with --no-browser or without one (an xdg-open of the test's own in PATH
    # writes what it was given).
    fake = os.path.join(work, "fake-bin")
    os.makedirs(fake, exist_ok=True)
    opened = os.path.join(work, "opened.txt")
    with open(os.path.join(fake, "xdg-open"), "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" >> {opened}\n")
    os.chmod(os.path.join(fake, "xdg-open"), 0o755)
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    base["PATH"] = fake + os.pathsep + base.get("PATH", "")
    for env, options, wanted in ((dict(base, DISPLAY=":99"), [], True),
                                 (dict(base, WAYLAND_DISPLAY="wayland-9"), [], True),
                                 (dict(base, DISPLAY=":99"), ["--no-browser"], False),
                                 (base, [], False)):
        if os.path.exists(opened):
            os.remove(opened)
        process = subprocess.Popen([os.path.join(bin_dir, "analyzer"), *options, "--port", "0", experiment], cwd=work,
                                   env=env, stdout=subprocess.PIPE, text=True, start_new_session=True)
        line = process.stdout.readline()
        url = line.split(" ", 1)[1].strip() if line.startswith("analyzer: ") else line
        deadline = time.monotonic() + 10
        while wanted and not os.path.exists(opened) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.3 if not wanted else 0)
        process.terminate()
        process.wait(timeout=10)
        given = open(opened).read().strip() if os.path.exists(opened) else None
        check(given == (url if wanted else None), f"xdg-open given {given!r} with {options} (wanted {wanted}): {url}")
    print("http: xdg-open opens the URL where a desktop is, and not with --no-browser or without one")


def check_compare(bin_dir, work, experiment, markup_experiment):
    # Two experiments side by side, as er_print -compare shows them.
    both = Analyzer(bin_dir, work, experiment, markup_experiment)
    try:
        for mode in ("on", "delta", "ratio"):
            for command in ("functions", "calltree", "thread_list"):
                status, answer = both.view(command, compare=mode)
                want = er_print_json(bin_dir, work, [experiment, markup_experiment], "-compare", mode, "-" + command)
                check(status == 200 and answer["view"] == want, f"{command} with compare {mode} is er_print's")
        status, answer = both.view("functions")
        check(answer["view"] == er_print_json(bin_dir, work, [experiment, markup_experiment], "-functions"),
              "compare off again: both experiments' functions together")
        # The experiments shown: the first alone, with a filter too, as
        # er_print's EXPID filter gives them; an id that is none is refused.
        status, answer = both.view("functions", experiments="1")
        check(status == 200 and answer["view"] == er_print_json(
            bin_dir, work, [experiment, markup_experiment], "-filters", "EXPID IN (1)", "-functions"),
            "experiments=1 is er_print's EXPID IN (1)")
        check(MARKUP_FUNCTION not in [r["name"] for r in answer["view"]["rows"]], "the second one's function is gone")
        status, answer = both.view("functions", experiments="2", filters="THRID IN (1)")
        check(status == 200 and answer["view"] == er_print_json(
            bin_dir, work, [experiment, markup_experiment], "-filters", "(THRID IN (1)) && EXPID IN (2)", "-functions"),
            "experiments=2 and a filter together")
        status, answer = both.view("functions", experiments="2", filters="thread in 1")
        check(status == 400 and answer.get("setting") == "experiments" and "gprofng's syntax" in answer["error"],
              f"a filter of the other syntax is named: {answer}")
        status, answer = both.view("functions", experiments="3")
        check(status == 400 and answer.get("setting") == "experiments", f"experiment 3 of 2 is refused: {answer}")
    finally:
        both.stop()
    print("http: compare on, delta and ratio equal er_print's; the experiments shown are its EXPID filter")


def check_kept_views(analyzer):
    # A view asked again under the same settings is the answer kept, the
    # same bytes; another setting is made anew; source is always read anew.
    def ask(command, **settings):
        query = urllib.parse.urlencode({"cmd": command, **settings})
        response, body = analyzer.request("/api/view?" + query, {"X-Lumen-Token": analyzer.token})
        check(response.status == 200, f"{command} {settings}: {response.status} {body[:200]}")
        return response.getheader("X-Lumen-View"), body

    settings = {"metrics": "e.totalcpu:i.totalcpu:name", "sort": "name"}
    first = ask("functions", **settings)
    again = ask("functions", **settings)
    check(first[0] == "made" and again == ("kept", first[1]), f"asked again: {first[0]}, then {again[0]}")
    other = ask("functions", **dict(settings, sort="i.totalcpu"))
    check(other[0] == "made" and other[1] != first[1], "another sort is made anew")
    check(ask("functions", **settings) == ("kept", first[1]), "the first answer is still kept")
    for _ in range(2):
        check(ask("source main")[0] == "made", "a source view is read anew each time")
    print("http: views asked again are the answers kept; other settings and sources are made anew")


def check_decoded_while_idle(bin_dir, work, experiment):
    # Nothing is decoded before a view is asked; once one is answered and
    # the page is quiet, the events are decoded, and a change of filter is
    # er_print's answer all the same.
    analyzer = Analyzer(bin_dir, work, experiment)

    def decoded():
        response, body = analyzer.request("/api/session", {"X-Lumen-Token": analyzer.token})
        check(response.status == 200, f"/api/session: {response.status} {body[:200]}")
        return json.loads(body)["events_decoded"]

    def decoded_within(seconds):
        deadline = time.monotonic() + seconds
        while not decoded():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    try:
        check(decoded() is False, "events decoded before any view was asked")
        for settings in ({}, {"viewmode": "machine"}):
            status, answer = analyzer.view("functions", **settings)
            answered = time.monotonic()
            check(status == 200, f"functions {settings}: {status} {answer}")
            if settings == {}:
                # The first view is a pass over the files: decoded already
                # sooner than the quiet the decoder waits for, the view (or
                # the /api/session before it) decoded.
                early = decoded()
                check(not early or time.monotonic() - answered >= 0.2,
                      "the first view decoded the events itself, not the idle decoder")
            check(decoded_within(60), f"the events were not decoded within 60 s of the view {settings}")
            flags = ["-viewmode", settings["viewmode"]] if settings else []
            status, answer = analyzer.view("functions", filters="thread in 2-3", **settings)
            want = er_print_json(bin_dir, work, experiment, *flags, "-filters", "thread in 2-3", "-functions")
            check(status == 200 and answer["view"] == want, f"a filter after the decoding {settings} is er_print's")
            check(decoded(), f"the decoding {settings} still serves after a change of filter")
    finally:
        analyzer.stop()
    print("http: once a view is answered and the page is quiet, the events are decoded; filters then are er_print's")


def check_defaults_files(bin_dir, work, experiment):
    # The .er.rc er_print reads (here both $HOME's and the current
    # directory's) sets the page's defaults: a view asked with no settings
    # is er_print's under the same file; its source paths are not taken.
    rc_dir = os.path.join(work, "rc")
    os.makedirs(rc_dir, exist_ok=True)
    with open(os.path.join(rc_dir, ".er.rc"), "w") as rc:
        rc.write("dmetrics i.totalcpu:e.totalcpu:name\ndsort i.totalcpu\nviewmode machine\nsetpath /etc\n")
    analyzer = Analyzer(bin_dir, rc_dir, experiment)
    try:
        response, body = analyzer.request("/api/session", {"X-Lumen-Token": analyzer.token})
        summary = json.loads(body)
        check(summary["default_viewmode"] == "machine", f"the defaults file's view mode is the page's: {summary}")
        check(summary["default_metrics"].startswith("i.totalcpu"), f"its metrics are the page's: {summary}")
        status, answer = analyzer.view("functions")
        want = er_print_json(bin_dir, rc_dir, experiment, "-functions")
        check(status == 200 and answer["view"] == want, "-functions with no settings is er_print's under the same .er.rc")
        check([m["spec"] for m in want["metrics"]][:2] == ["i.totalcpu", "e.totalcpu"],
              f"the .er.rc's metrics apply: {want['metrics']}")
    finally:
        analyzer.stop()
    warnings = analyzer.process.stderr.read()
    check("setpath" in warnings and "not taken from a defaults file" in warnings,
          f"the defaults file's setpath is refused with a warning: {warnings!r}")
    print("http: the .er.rc defaults are the page's; its source paths are not taken")


def check_omp_views(bin_dir, work, omp_experiment):
    # The OpenMP plugin's views and the stacks it folds are er_print's in
    # each view mode. Each mode is asked of a server of its own: er_print's
    # session itself answers a mode it returns to after machine mode on
    # OpenMP stacks with other figures (-viewmode user -functions -viewmode
    # machine -functions -viewmode user -functions), which is not the page's
    # to check.
    for mode in ("user", "expert", "machine"):
        omp = Analyzer(bin_dir, work, omp_experiment)
        try:
            for command in ("omp_preg", "omp_task", "omp_states", "functions", "calltree"):
                status, answer = omp.view(command, viewmode=mode)
                want = er_print_json(bin_dir, work, omp_experiment, "-viewmode", mode, "-" + command)
                check(status == 200 and answer["view"] == want, f"{command} in {mode} mode is er_print's")
        finally:
            omp.stop()
    print("http: the OpenMP views equal er_print's in every view mode")


def source_heading(answer):
    return next(r["name"] for r in answer["view"]["rows"] if r.get("kind") == "file")


def check_sources(bin_dir, work, analyzer, experiment, source_dir):
    # er_print reads the source where the debug information names it; the
    # analyzer only under the experiment and the directories it was given.
    want = er_print_json(bin_dir, work, experiment, "-source", "spin_a")
    check("threads_target.c" in source_heading({"view": want}) and "not found" not in source_heading({"view": want}),
          f"er_print finds the source: {source_heading({'view': want})}")
    status, answer = analyzer.view("source spin_a")
    check(status == 200 and "not found" in source_heading(answer), f"analyzer without -addpath: {source_heading(answer)}")
    check(all(r["name"] == "" for r in answer["view"]["rows"] if r.get("kind") == "line"), "no source text is shown")
    given = Analyzer(bin_dir, work, "-addpath", source_dir, experiment)
    try:
        status, answer = given.view("source spin_a")
        check(status == 200 and answer["view"]["rows"] == want["rows"],
              f"analyzer -addpath {source_dir} shows the source as er_print does: {source_heading(answer)}")
        # The disassembly interleaves the same source lines.
        status, answer = given.view("disasm spin_a")
        check(status == 200 and answer["view"] == er_print_json(bin_dir, work, experiment, "-disasm", "spin_a"),
              "analyzer -addpath's disassembly is er_print's")
    finally:
        given.stop()
    # The experiment's own copy is read (an archived source).
    archived = os.path.join(experiment, "threads_target.c")
    with open(os.path.join(source_dir, "threads_target.c")) as f, open(archived, "w") as out:
        out.write(f.read())
    copy = Analyzer(bin_dir, work, experiment)
    try:
        status, answer = copy.view("source spin_a")
        check(status == 200 and os.path.realpath(archived) in source_heading(answer),
              f"the experiment's copy of the source is read: {source_heading(answer)}")
    finally:
        copy.stop()
        os.remove(archived)
    print("http: sources are read only from the experiment and the directories given")


def drag_time_axis(driver, loaded_count, wait_after, start, end):
    """Drags across the Timeline's time axis from `start` to `end` (fractions of its width) and waits for the page
    the drag asks for."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    overlay = driver.find_element(By.CSS_SELECTOR, "svg.timeline g.brush rect.overlay")
    width = overlay.size["width"]
    before = loaded_count()
    # Offsets are from the overlay's centre.
    ActionChains(driver).move_to_element_with_offset(overlay, int((start - 0.5) * width), 0).click_and_hold() \
        .move_by_offset(int((end - start) * width), 0).release().perform()
    wait_after(before)


def check_timeline(driver, open_page, loaded_count, wait_after, bin_dir, work, analyzer, experiment,
                   artifacts):
    """The Timeline tab: a box for each bin of er_print -timeline; a click shows the call tree er_print gives for
    that thread and time; dragging across the axis filters every tab to the bins under it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    open_page(analyzer, "tab=timeline")
    want = er_print_json(bin_dir, work, experiment, "-timeline")["rows"]
    drawn = timeline_bins(driver)
    check(drawn == [[r["name"], r["thread"], r["start"], r["end"], r["events"]] for r in want],
          f"the timeline's {len(drawn)} bins are er_print's {len(want)}")
    threads = {r["thread"] for r in want}
    check(len(threads) >= 3, f"a lane for each thread: {threads}")
    driver.save_screenshot(os.path.join(artifacts, "timeline.png"))
    # The busiest bin's call tree.
    spec = driver.find_element(By.CSS_SELECTOR, "svg.timeline").get_attribute("data-metric")
    busiest = max(range(len(want)), key=lambda i: want[i]["values"][spec])
    rects = driver.find_elements(By.CSS_SELECTOR, "svg.timeline rect.bin")
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", rects[busiest])
    WebDriverWait(driver, 60).until(
        lambda d: d.find_element(By.ID, "timeline-details").get_attribute("data-loaded") == "true")
    details = driver.find_element(By.ID, "timeline-details")
    row = want[busiest]
    window = details.get_attribute("data-filters")
    check(details.get_attribute("data-thread") == row["thread"] and window.startswith("time in " + row["start"] + "-"),
          f"the bin clicked is thread {row['thread']} from {row['start']}: {window}")
    tree = er_print_json(bin_dir, work, experiment, "-thread_select", row["thread"], "-filters", window, "-calltree")
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('#timeline-details tr[data-name]')).map(r => [r.dataset.name,"
        " Object.fromEntries(Array.from(r.querySelectorAll('td[data-spec]')).map(c => [c.dataset.spec,"
        " parseFloat(c.dataset.value)]))])")
    check(shown == [[r["name"], r["values"]] for r in tree["rows"]],
          f"the bin's call tree is er_print's: {shown[:3]} vs {tree['rows'][:3]}")
    check(row["name"] in [name for name, _ in shown], f"the bin's leading function {row['name']} is in its tree")
    driver.save_screenshot(os.path.join(artifacts, "timeline-bin.png"))
    # Dragging across the axis from a third to two thirds of the run.
    drag_time_axis(driver, loaded_count, wait_after, 1 / 3, 2 / 3)
    WebDriverWait(driver, 60).until(lambda d: "filters=time" in d.current_url)
    from urllib.parse import parse_qs, urlparse
    filters = parse_qs(urlparse(driver.current_url).fragment)["filters"][0]
    check(filters.startswith("time in "), f"the drag set a time filter: {filters}")
    narrowed = er_print_json(bin_dir, work, experiment, "-filters", filters, "-timeline")["rows"]
    check(0 < len(narrowed) < len(want), f"the time filter {filters} keeps {len(narrowed)} of {len(want)} bins")
    open_page(analyzer, urlparse(driver.current_url).fragment.replace("tab=timeline", "tab=functions"))
    same_numbers(driver, er_print_json(bin_dir, work, experiment, "-filters", filters, "-functions"),
                 f"functions under the dragged {filters}")
    print(f"browser: the timeline draws er_print's {len(want)} bins, a bin's call tree and a dragged time filter")


# threads_target: each thread burns its CPU in a function of its own.
SPIN_OF_THREAD = {"1": "spin_main", "2": "spin_a", "3": "spin_b", "4": "spin_c"}


def check_timeline_events(driver, open_page, loaded_count, wait_after, bin_dir, work, analyzer, experiment,
                          artifacts):
    """A time range of few events: the Timeline draws er_print -event_list's events one by one; a click on each
    thread's first clock sample shows its values and the call stack er_print counts for that event alone (-filters
    on its TSTAMP and thread, -calltree), which holds the thread's own spin function; a drag across the axis zooms
    in to the events of the range dragged, to the nanosecond."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    # A tenth of a second of the threads' spinning: a few dozen samples and
    # other events. The first such stretch from 0.1 s on (every 50 ms) where
    # at least three threads were sampled: on a loaded machine a thread may
    # wait a tenth of a second for a CPU.
    everything = er_print_json(bin_dir, work, experiment, "-event_list", "100000")["tables"][0]["rows"]
    begin = next((0.05 * k for k in range(2, 40)
                  if len({r["thread"] for r in everything if r["data"] == "clock" and
                          0.05 * k <= float(r["time"]) <= 0.05 * k + 0.1}) >= 3), 0.1)
    end = begin + 0.1
    filters = f"time in {begin:.3f}-{end:.3f}"
    listed = er_print_json(bin_dir, work, experiment, "-filters", filters, "-event_list", "2000")
    rows = listed["tables"][0]["rows"]
    selected = int(listed["summary"]["selected"])
    check(0 < len(rows) == selected <= 2000, f"{filters} holds few events: {selected}")
    check([float(r["time"]) for r in rows] == sorted(float(r["time"]) for r in rows), "events in time order")
    check(all(begin - 1e-9 <= float(r["time"]) <= end + 1e-9 for r in rows), f"every event listed is in {filters}")
    open_page(analyzer, "tab=timeline&filters=" + urllib.parse.quote(filters))
    svg = driver.find_element(By.CSS_SELECTOR, "svg.timeline.events")
    check(svg.get_attribute("data-events") == str(len(rows)) and svg.get_attribute("data-selected") == str(selected),
          f"the timeline draws the {selected} events one by one: {svg.get_attribute('data-events')}")
    drawn = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.timeline rect.event')).map(r => [r.dataset.name,"
        " r.dataset.thread, r.dataset.tstamp])")
    check(drawn == [[r["name"], r["thread"], r["tstamp"]] for r in rows], "each event where er_print lists it")
    clicked = 0
    for thread, spin in SPIN_OF_THREAD.items():
        index = next((i for i, r in enumerate(rows) if r["thread"] == thread and r["data"] == "clock"), None)
        if index is None:
            continue
        row = rows[index]
        mark = driver.find_elements(By.CSS_SELECTOR, "svg.timeline rect.event")[index]
        driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", mark)
        WebDriverWait(driver, 30).until(
            lambda d: d.find_element(By.ID, "timeline-details").get_attribute("data-event") == str(index))
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll('#timeline-details ol.event-stack li')).map(l => l.textContent)")
        check(shown == [f"{f['function']} ({f['load_object']})" for f in row["stack"]],
              f"thread {thread}'s event at {row['time']} s shows its stack: {shown}")
        check(spin in [f["function"] for f in row["stack"]], f"thread {thread}'s sample is in {spin}: {shown}")
        # The same event alone, as the profile counts it: one path from <Total> to its leaf.
        alone = er_print_json(bin_dir, work, experiment, "-filters", f"TSTAMP == {row['tstamp']} && THRID == {thread}",
                              "-calltree")["rows"]
        path = [r["name"] for r in alone if r["name"] != "<Total>"]
        check(path == [f["function"] for f in reversed(row["stack"])],
              f"the call tree of that event alone is its stack: {path} vs {shown}")
        value_cells = driver.execute_script(
            "return Array.from(document.querySelectorAll('#timeline-details table.event-values td')).map(c => c.textContent)")
        cpu = next(m for m in listed["tables"][0]["metrics"] if m["spec"] == "e.totalcpu")
        check(value_cells and abs(float(value_cells[0].split()[0].replace(",", "")) - row["values"]["e.totalcpu"]) <= 5e-4,
              f"its {cpu['title']} is shown to the millisecond: {value_cells} vs {row['values']}")
        clicked += 1
    check(clicked >= 3, f"a clock sample of at least three threads in {filters}: {clicked}")
    driver.save_screenshot(os.path.join(artifacts, "timeline-events.png"))
    # A lane per CPU: each CPU the events ran on (and one for those that record none).
    from selenium.webdriver.support.ui import Select
    before = loaded_count()
    Select(driver.find_element(By.ID, "timeline-lanes")).select_by_value("cpu")
    wait_after(before)
    labels = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "svg.timeline.events text.lane-label")]
    cpus = sorted({int(r["cpu"]) for r in rows})
    check(labels == [("no CPU" if c < 0 else f"CPU {c}") for c in cpus], f"a lane per CPU {cpus}: {labels}")
    check(driver.find_element(By.CSS_SELECTOR, "svg.timeline.events").get_attribute("data-events") == str(len(rows)),
          "the same events in lanes per CPU")
    driver.save_screenshot(os.path.join(artifacts, "timeline-events-cpus.png"))
    # Zooming in: the second quarter of the axis.
    drag_time_axis(driver, loaded_count, wait_after, 1 / 4, 1 / 2)
    from urllib.parse import parse_qs, urlparse
    zoomed = parse_qs(urlparse(driver.current_url).fragment)["filters"][0]
    check(zoomed.startswith("time in ") and zoomed != filters, f"the drag zoomed in: {zoomed}")
    inside = er_print_json(bin_dir, work, experiment, "-filters", zoomed, "-event_list", "2000")
    svg = driver.find_element(By.CSS_SELECTOR, "svg.timeline.events")
    check(0 < int(inside["summary"]["selected"]) < selected and
          svg.get_attribute("data-selected") == str(inside["summary"]["selected"]),
          f"{zoomed} draws its {inside['summary']['selected']} events: {svg.get_attribute('data-selected')}")
    # Panning: half the range later.
    before = loaded_count()
    driver.find_element(By.CSS_SELECTOR, "button.timeline-pan[data-direction='1']").click()
    wait_after(before)
    panned = parse_qs(urlparse(driver.current_url).fragment)["filters"][0]
    a, b = (float(t) for t in zoomed.removeprefix("time in ").split("-"))
    c, d = (float(t) for t in panned.removeprefix("time in ").split("-"))
    check(abs((c - a) - (b - a) / 2) < 2e-9 and abs((d - c) - (b - a)) < 2e-9, f"{panned} is {zoomed} half later")
    later = er_print_json(bin_dir, work, experiment, "-filters", panned, "-event_list", "0")["summary"]["selected"]
    svg = driver.find_element(By.CSS_SELECTOR, "svg.timeline.events")
    check(svg.get_attribute("data-selected") == str(later), f"{panned} draws its {later} events")
    print(f"browser: {filters} draws its {selected} events, a click shows an event's stack ({clicked} threads), "
          f"a drag zooms in to {zoomed}'s {inside['summary']['selected']}, and a pan to {panned}'s {later}")


def check_browser(bin_dir, work, analyzer, markup, experiment, markup_experiment, artifacts):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    driver = browser_or_skip()
    os.makedirs(artifacts, exist_ok=True)

    def loaded_count():
        return int(driver.execute_script("return document.body.dataset.loaded || '0'"))

    def wait_after(before):
        WebDriverWait(driver, 60).until(lambda d: loaded_count() > before)

    def open_page(server, hash_part):
        # The same page with another hash is not loaded again: it draws the
        # new state once more, which the marker left on it tells apart.
        driver.execute_script("window.lumenTestMarker = true")
        before = loaded_count()
        driver.get(server.url + "#" + hash_part)
        same_page = driver.execute_script("return window.lumenTestMarker === true")
        WebDriverWait(driver, 60).until(lambda d: loaded_count() > (before if same_page else 0) and
                                        d.find_element(By.ID, "status").text == "")

    def apply_field(field_id, text):
        """Types `text` into the control `field_id` (in place of what it held) and applies it."""
        field = driver.find_element(By.ID, field_id)
        field.clear()
        field.send_keys(text)
        before = loaded_count()
        driver.find_element(By.ID, "apply").click()
        wait_after(before)

    try:
        open_page(analyzer, "tab=overview")
        tabs = [b.get_attribute("data-tab") for b in driver.find_elements(By.CSS_SELECTOR, "#tabs button")]
        for wanted in ("overview", "functions", "callers", "calltree", "source", "disasm", "lines", "pcs", "threads",
                       "timeline", "experiments", "view-leaks", "view-heap", "view-heap_in_use", "view-syncobjects",
                       "view-iostat"):
            check(wanted in tabs, f"a tab {wanted} among {tabs}")
        visit_every_tab(driver, artifacts)
        print(f"browser: {len(tabs)} tabs load without console errors")

        # The header's fields in er_print's words (its JSON "labels"), not its keys.
        open_page(analyzer, "tab=overview")
        labels = er_print_json(bin_dir, work, experiment, "-header")["labels"]
        shown = [dt.text for dt in driver.find_elements(By.CSS_SELECTOR, "#view dl.members dt")]
        for key in ("command", "exit_code", "duration_s", "host"):
            check(labels[key] in shown, f"the header shows {labels[key]!r} for {key}: {shown}")

        # The function table: every number is er_print's.
        open_page(analyzer, "tab=functions")
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-functions"), "functions")
        # View mode and filter from the controls: the numbers er_print gives with them.
        Select(driver.find_element(By.ID, "viewmode")).select_by_value("machine")
        apply_field("filters", "thread in 2-3")
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-viewmode", "machine", "-filters", "thread in 2-3",
                                   "-functions"), "functions in machine mode, threads 2-3")
        check("viewmode=machine" in driver.current_url and "filters=thread" in driver.current_url,
              f"the URL holds the settings: {driver.current_url}")
        driver.refresh()
        WebDriverWait(driver, 60).until(lambda d: loaded_count() > 0 and d.find_element(By.ID, "status").text == "")
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-viewmode", "machine", "-filters", "thread in 2-3",
                                   "-functions"), "functions after a reload")
        driver.save_screenshot(os.path.join(artifacts, "functions-machine-filtered.png"))
        # Sorting by a column's header.
        driver.find_element(By.CSS_SELECTOR, "#view th[data-spec='i.totalcpu']").click()
        WebDriverWait(driver, 60).until(lambda d: "sort=i.totalcpu" in d.current_url and
                                        d.find_element(By.ID, "status").text == "")
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-viewmode", "machine", "-filters", "thread in 2-3",
                                   "-sort", "i.totalcpu", "-functions"), "functions sorted by i.totalcpu")
        # A thread selection from its field.
        apply_field("threads", "2")
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-viewmode", "machine", "-filters", "thread in 2-3",
                                   "-sort", "i.totalcpu", "-thread_select", "2", "-functions"), "functions of thread 2")
        check(not console_errors(driver), "no console errors after changing settings")

        # A thread's number on the Threads tab selects it for the function table.
        open_page(analyzer, "tab=threads")
        before = loaded_count()
        link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "#view a.thread-link") if a.text == "3")
        link.click()
        wait_after(before)
        check("tab=functions" in driver.current_url and "threads=3" in driver.current_url, driver.current_url)
        same_numbers(driver, er_print_json(bin_dir, work, experiment, "-thread_select", "3", "-functions"), "thread 3's functions")

        check_timeline(driver, open_page, loaded_count, wait_after, bin_dir, work, analyzer, experiment,
                       artifacts)
        check_timeline_events(driver, open_page, loaded_count, wait_after, bin_dir, work, analyzer, experiment,
                              artifacts)

        # A bad filter: its message at the filter.
        open_page(analyzer, "tab=functions")
        apply_field("filters", "thread in zebra")
        message = er_print_error(bin_dir, work, experiment, "-filters", "thread in zebra", "-functions")
        shown = driver.find_element(By.ID, "error-filters").text
        check(shown == message, f"the filter's error {shown!r}, er_print says {message!r}")
        check(driver.find_element(By.ID, "filters").get_attribute("aria-invalid") == "true", "the filter is marked")
        driver.save_screenshot(os.path.join(artifacts, "bad-filter.png"))
        # A bad metric: its message at the metrics.
        apply_field("metrics", "e.nosuchmetric")
        message = er_print_error(bin_dir, work, experiment, "-metrics", "e.nosuchmetric", "-functions")
        shown = driver.find_element(By.ID, "error-metrics").text
        check(shown == message, f"the metrics' error {shown!r}, er_print says {message!r}")
        driver.get_log("browser")  # the 400s are logged as failed loads

        # Clicking a function opens its callers and callees.
        open_page(analyzer, "tab=functions")
        before = loaded_count()
        driver.find_element(By.LINK_TEXT, "spin_b").click()
        wait_after(before)
        check("tab=callers" in driver.current_url and "fn=spin_b" in driver.current_url, driver.current_url)
        focus = driver.find_element(By.CSS_SELECTOR, "#view tr.focus")
        check(focus.get_attribute("data-name") == "spin_b", "callers-callees of spin_b")
        callers = [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#view tr.caller")]
        want = er_print_json(bin_dir, work, experiment, "-csingle", "spin_b")["rows"][0]
        check(callers == [c["name"] for c in want["callers"]], f"callers {callers} vs {want['callers']}")
        before = loaded_count()
        driver.find_element(By.PARTIAL_LINK_TEXT, "Source of spin_b").click()
        wait_after(before)
        check(driver.find_element(By.ID, "view").get_attribute("data-tab") == "source", "the source of spin_b")
        # The call tree opens and closes.
        open_page(analyzer, "tab=calltree")
        rows = driver.find_elements(By.CSS_SELECTOR, "#view tr[data-depth]")
        hidden = [r for r in rows if not r.is_displayed()]
        toggle = next(r for r in rows if r.is_displayed() and r.find_elements(By.CSS_SELECTOR, ".toggle")
                      and r.find_element(By.CSS_SELECTOR, ".toggle").text == "\u25B8")
        toggle.find_element(By.CSS_SELECTOR, ".toggle").click()
        check(len([r for r in rows if not r.is_displayed()]) < len(hidden), "a closed branch opens")
        driver.save_screenshot(os.path.join(artifacts, "calltree-opened.png"))
        # The icicle above it: each node as wide as its share of the first
        # inclusive metric, every one a node of er_print's call tree.
        spec = driver.find_element(By.CSS_SELECTOR, "svg.icicle").get_attribute("data-metric")
        nodes = driver.execute_script("return Array.from(document.querySelectorAll('svg.icicle g.node')).map(g =>"
                                      " [g.dataset.name, parseFloat(g.dataset.value), parseFloat(g.dataset.width)])")
        tree = er_print_json(bin_dir, work, experiment, "-calltree")["rows"]
        total = tree[0]["values"][spec]
        check(nodes[0] == ["<Total>", total, 1200], f"the icicle's root is <Total> across it: {nodes[0]}")
        drawn = {(r["name"], r["values"][spec]) for r in tree}
        for name, value, width in nodes:
            check((name, value) in drawn, f"icicle node {name} {value} is a call tree node of er_print's")
            check(abs(width - 1200 * value / total) < 1e-6, f"{name} is {width} wide for {value} of {total}")
        check(len(nodes) >= 8, f"{len(nodes)} nodes drawn")
        check(not console_errors(driver), "no console errors")

        # Heap in Use: the bins er_print lists, as high as its highest.
        open_page(analyzer, "tab=view-heap_in_use")
        series = er_print_json(bin_dir, work, experiment, "-heap_in_use")
        bins = series["tables"][0]["rows"]
        chart = driver.find_element(By.CSS_SELECTOR, "svg.heap-in-use")
        check(int(chart.get_attribute("data-bins")) == len(bins), f"{chart.get_attribute('data-bins')} bins drawn, "
              f"er_print lists {len(bins)}")
        check(float(chart.get_attribute("data-highest")) == series["summary"]["highest"],
              f"the chart's top {chart.get_attribute('data-highest')} is er_print's highest {series['summary']}")
        ends = driver.execute_script("return Array.from(document.querySelectorAll('svg.heap-in-use rect.bin')).map("
                                     "r => parseFloat(r.dataset.atEnd))")
        check(ends == [b["values"]["at_end"] for b in bins], "each bin's bytes in use at its end are er_print's")
        check(not console_errors(driver), "no console errors on the Heap in Use tab")
        driver.save_screenshot(os.path.join(artifacts, "heap-in-use.png"))

        # Sync objects drawn as bars: er_print's rows and values (I/O's, on a
        # program that does I/O: io.analyzer_every_tab).
        for command, parts in (("syncobjects", ["wait"]),):
            open_page(analyzer, "tab=view-" + command)
            table = er_print_json(bin_dir, work, experiment, "-" + command)["tables"][0]
            check(table["rows"], f"-{command} has rows to draw")
            same_bars(driver, table, parts, command)
            check(not console_errors(driver), f"no console errors on the {command} tab")
            driver.save_screenshot(os.path.join(artifacts, f"{command}-bars.png"))

        # The Experiments tab's boxes choose what every tab shows.
        both = Analyzer(bin_dir, work, experiment, markup_experiment)
        try:
            open_page(both, "tab=experiments")
            boxes = driver.find_elements(By.CSS_SELECTOR, "fieldset.experiment-chooser input[type=checkbox]")
            check(len(boxes) == 2 and all(b.is_selected() for b in boxes), "a box per experiment, both shown")
            before = loaded_count()
            boxes[1].click()
            wait_after(before)
            check("experiments=1" in driver.current_url, f"the URL keeps the choice: {driver.current_url}")
            before = loaded_count()
            driver.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="functions"]').click()
            wait_after(before)
            same_numbers(driver, er_print_json(bin_dir, work, [experiment, markup_experiment], "-filters", "EXPID IN (1)",
                                       "-functions"), "the first experiment's functions alone")
            check(not console_errors(driver), "no console errors choosing experiments")
            driver.save_screenshot(os.path.join(artifacts, "experiments-chosen.png"))
        finally:
            both.stop()

        # Markup in names is text.
        open_page(markup, "tab=functions")
        names = [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#view tr[data-name]")]
        check(MARKUP_FUNCTION in names, f"the markup function is a row: {names}")
        check(MARKUP_FUNCTION in driver.find_element(By.ID, "view").text, "its name is shown as written")
        check(not driver.find_elements(By.CSS_SELECTOR, "#view img"), "no image element was made of it")
        same_numbers(driver, er_print_json(bin_dir, work, markup_experiment, "-functions"), "the markup target's functions")
        driver.save_screenshot(os.path.join(artifacts, "markup-functions.png"))
        open_page(markup, "tab=calltree")
        check(MARKUP_FUNCTION in driver.execute_script("return document.getElementById('view').textContent"),
              "the call tree names it as written")
        check(not driver.find_elements(By.CSS_SELECTOR, "#view img"), "no image element in the call tree")
        icicle_names = [g.get_attribute("data-name") for g in driver.find_elements(By.CSS_SELECTOR, "svg.icicle g.node")]
        check(MARKUP_FUNCTION in icicle_names, f"the icicle has the markup function: {icicle_names}")
        driver.save_screenshot(os.path.join(artifacts, "markup-calltree.png"))
        before = loaded_count()
        driver.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="functions"]').click()
        wait_after(before)
        before = loaded_count()
        driver.find_element(By.LINK_TEXT, MARKUP_FUNCTION).click()
        wait_after(before)
        check(driver.find_element(By.CSS_SELECTOR, "#view tr.focus").get_attribute("data-name") == MARKUP_FUNCTION,
              "the markup function's callers and callees")
        check(not driver.find_elements(By.CSS_SELECTOR, "#view img"), "no image element in callers-callees")
        check(not console_errors(driver), "no console errors on the markup target")
    finally:
        driver.quit()
    print(f"browser: every check passed; screenshots in {artifacts}")


def check_omp_tabs(bin_dir, work, omp_experiment, artifacts):
    # Each tab of an OpenMP experiment, the plugin's among them, loads
    # without console errors.
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    omp = Analyzer(bin_dir, work, omp_experiment)
    driver = browser_or_skip()
    try:
        driver.get(omp.url + "#tab=overview")
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.loaded || ''"))
        tabs = [b.get_attribute("data-tab") for b in driver.find_elements(By.CSS_SELECTOR, "#tabs button")]
        for wanted in ("view-omp_preg", "view-omp_task", "view-omp_states"):
            check(wanted in tabs, f"a tab {wanted} among {tabs}")
        for tab in tabs:
            driver.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{tab}"]').click()
            WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == tab
                                            and d.find_element(By.ID, "status").text == "")
            check(driver.find_element(By.ID, "view-error").text == "", f"omp tab {tab}")
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"omp tab {tab}: console errors {errors}")
            driver.save_screenshot(os.path.join(artifacts, f"omp-{tab}.png"))
        # Regions and tasks drawn as bars: er_print's rows, work and wait.
        for command, parts in (("omp_preg", ["work", "wait"]), ("omp_task", ["time"])):
            driver.get(omp.url + "#tab=view-" + command)
            driver.refresh()
            WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.loaded || ''")
                                            and d.find_element(By.ID, "status").text == "")
            table = er_print_json(bin_dir, work, omp_experiment, "-" + command)["tables"][0]
            same_bars(driver, table, parts, command)
            check(not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"], f"{command}: console errors")
    finally:
        driver.quit()
        omp.stop()
    print(f"browser: the OpenMP experiment's {len(tabs)} tabs load without console errors")


def main():
    mode = sys.argv[1]
    bin_dir, target_dir, source_dir, omp_target, artifacts = (os.path.abspath(a) for a in sys.argv[2:7])
    if mode == "browser":
        browser_or_skip().quit()  # skip before collecting anything
    with tempfile.TemporaryDirectory() as work:
        experiment = collect(bin_dir, target_dir, work, "threads.er", ["-p", "on", "-H", "on", "-s", "on", "-i", "on"],
                             "threads_target", "0.5")
        markup_experiment = collect(bin_dir, target_dir, work, "markup.er", ["-p", "on"], "markup_names_target", "0.3")
        omp_experiment = collect(bin_dir, os.path.dirname(omp_target), work, "omp.er", ["-p", "on"],
                                 os.path.basename(omp_target))
        analyzer = Analyzer(bin_dir, work, experiment)
        markup = Analyzer(bin_dir, work, markup_experiment)
        try:
            if mode == "http":
                check_refusals(analyzer)
                check_port_taken(bin_dir, work, analyzer, experiment)
                check_views(bin_dir, work, analyzer, experiment)
                check_sources(bin_dir, work, analyzer, experiment, source_dir)
                check_compare(bin_dir, work, experiment, markup_experiment)
                check_defaults_files(bin_dir, work, experiment)
                check_kept_views(analyzer)
                check_decoded_while_idle(bin_dir, work, experiment)
                check_browser_launch(bin_dir, work, experiment)
                check_omp_views(bin_dir, work, omp_experiment)
                status, answer = markup.view("functions")
                check(status == 200 and MARKUP_FUNCTION in [r["name"] for r in answer["view"]["rows"]],
                      f"the markup target's function is named as written: {answer}")
            else:
                check_browser(bin_dir, work, analyzer, markup, experiment, markup_experiment, artifacts)
                check_omp_tabs(bin_dir, work, omp_experiment, artifacts)
        finally:
            analyzer.stop()
            markup.stop()


if __name__ == "__main__":
    main()
