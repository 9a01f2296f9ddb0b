#!/usr/bin/env python3
"""er_print -export speedscope opened in speedscope's own app, and what the
app shows compared with er_print's figures for the same experiment of
threads_target (four threads, each burning CPU in a function of its own):

  - the profile selector lists one profile per thread of -thread_list, each
    with the thread's Total CPU Time as its total weight;
  - in each profile, the Sandwich view's table has a row for each function
    on the thread's CPU stacks, whose Self is the function's exclusive and
    whose Total its inclusive Total CPU Time in er_print -thread_select;
  - a function's Self summed over the profiles is its exclusive Total CPU
    Time in er_print -functions;
  - the folded export, opened in the same app, is one profile whose
    Sandwich table has each function's exclusive and inclusive Total CPU
    Time in -functions, in nanoseconds.

speedscope (MIT) is installed from npm at a pinned version into the test's
work directory and served, with the exported file, on 127.0.0.1; headless
Chromium opens index.html#profileURL=<the file>. speedscope shows times
rounded ("150.45ms", "1.20s"); each is compared within half its last digit.
The folded lines' values have no unit, and speedscope shows them whole.

Exits 77 (skipped) when chromium, chromedriver, selenium, node or npm are
missing. Usage: speedscope_app_test.py BIN_DIR TARGET_DIR
"""
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

from er_test_support import check, run
from headless_chromium import browser_or_skip, skip

SPEEDSCOPE = "speedscope@1.25.0"
LOADED_SECONDS = 30

# speedscope's rendering of a time: "m:ss" from a minute, then s, ms, µs and
# ns with two decimals. Returns (seconds, half the last digit shown).
UNITS = {"s": 1.0, "ms": 1e-3, "\u00b5s": 1e-6, "ns": 1e-9}


def shown_seconds(text):
    minutes = re.match(r"^(\d+):(\d\d)\b", text)
    if minutes:
        return int(minutes[1]) * 60 + int(minutes[2]), 1.0  # whole seconds, cut down
    m = re.match(r"^(\d+\.\d\d)(s|ms|\u00b5s|ns)\b", text)
    check(m is not None, f"a time as speedscope shows it: {text!r}")
    return float(m[1]) * UNITS[m[2]], 0.005 * UNITS[m[2]]


def check_shown(text, seconds, what):
    value, half_digit = shown_seconds(text)
    check(abs(value - seconds) <= half_digit + 1e-9, f"{what}: speedscope shows {text!r}, er_print {seconds} s")


def check_shown_nanoseconds(text, seconds, what):
    """A unitless weight, shown whole with the locale's digit grouping."""
    digits = re.sub(r"\D", "", text.split(" (")[0])
    check(digits != "", f"a weight as speedscope shows it: {text!r}")
    # er_print's JSON numbers carry 9 significant digits.
    check(abs(int(digits) / 1e9 - seconds) <= 1e-8 * max(1, seconds) + 1e-9,
          f"{what}: speedscope shows {text!r} ns, er_print {seconds} s")


# What the app draws, read from its DOM: tables by their columns' headings,
# the profile's title by its "(n/N)".
TITLE = """[...document.querySelectorAll('span')].find(s => /^\\(\\d+\\/\\d+\\)$/.test(s.textContent))"""
PROFILE_TITLE = f"return {TITLE}.parentElement;"
PROFILE_ROWS = """const head = [...document.querySelectorAll('th')].find(th => th.textContent === 'Total Weight');
return head ? [...head.closest('table').querySelectorAll('tbody tr')] : [];"""
SANDWICH = f"""const head = [...document.querySelectorAll('th')].find(th => th.textContent === 'Symbol Name');
if (!head) return null;
const list = head.closest('table').nextElementSibling;  // its rows, drawn only where they are in view
const rows = [...list.querySelectorAll('tr')];
if (!rows.length) return null;  // not drawn yet
return {{title: {TITLE}?.parentElement.textContent,
        height: parseFloat(list.firstElementChild.style.height), rowHeight: rows[0].offsetHeight,
        rows: rows.map(tr => [...tr.cells].map(td => td.textContent))}};"""


def install_speedscope(work):
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            skip(f"{tool} is not installed")
    prefix = os.path.join(work, "npm")
    argv = ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", SPEEDSCOPE]
    r = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=300, start_new_session=True,
                       env={**os.environ, "npm_config_update_notifier": "false"})
    # The registry out of reach (no network, or a TLS-intercepting proxy
    # whose certificate this system does not hold) is the machine's, not a
    # failure of the export: said, and skipped.
    unreachable = re.search(r"npm ERR! code (E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH)|"
                            r"SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|CERT_\w+)", r.stderr)
    if r.returncode != 0 and unreachable:
        skip(f"the npm registry cannot be reached ({unreachable.group(1)})")
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    app = os.path.join(prefix, "node_modules", "speedscope", "dist", "release", "index.html")
    check(os.path.exists(app), f"{SPEEDSCOPE} ships its built app at {app}")
    return os.path.relpath(app, work)


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def read_profiles(driver, threads):
    """The profile selector, opened: one profile per thread, its total the thread's CPU time."""
    driver.execute_script(PROFILE_TITLE).click()
    profiles = []
    for row in driver.execute_script(PROFILE_ROWS):
        _, name, total = (c.text for c in row.find_elements("tag name", "td"))
        m = re.match(r"^(Thread \d+) \((\d+)\) ", name)
        check(m is not None and m[2] in threads, f"profile {name!r} names a thread of -thread_list")
        thread = threads[m[2]]
        check(m[1] == thread["name"], f"profile {name!r} is {thread['name']}")
        check_shown(total, thread["values"]["e.totalcpu"], f"{name}'s total")
        profiles.append((name, thread, total))
    check(len(profiles) == len(threads), f"{len(profiles)} profiles for {len(threads)} threads: {profiles}")
    driver.execute_script(PROFILE_TITLE).click()
    return profiles


def show_profile(driver, index, count):
    """Picks profile `index` in the selector; its Sandwich table once drawn."""
    from selenium.webdriver.support.ui import WebDriverWait
    driver.execute_script(PROFILE_TITLE).click()
    rows = driver.execute_script(PROFILE_ROWS)
    check(len(rows) == count, f"the selector lists {len(rows)} profiles, then {count}")
    rows[index].click()

    def drawn(d):
        table = d.execute_script(SANDWICH)
        return table if table and f"({index + 1}/{count})" in table["title"] else None
    return WebDriverWait(driver, LOADED_SECONDS).until(drawn, f"profile {index + 1}'s Sandwich table drawn")


def check_sandwich(sandwich, name, functions, check_value=check_shown):
    """The table of one profile against er_print's functions (of its thread);
    returns the Self shown of each function with exclusive time."""
    check(sandwich["rowHeight"] > 0 and len(sandwich["rows"]) == round(sandwich["height"] / sandwich["rowHeight"]),
          f"every row of {name}'s table is drawn: {sandwich}")
    shown = {function: (total, own) for total, own, function in sandwich["rows"]}
    on_cpu = {r["name"]: r["values"] for r in functions if r["name"] != "<Total>" and r["values"]["i.totalcpu"] > 0}
    check(set(shown) == set(on_cpu), f"{name}: speedscope's functions {sorted(shown)}, "
          f"er_print's on the thread's CPU stacks {sorted(on_cpu)}")
    selves = {}
    for function, values in on_cpu.items():
        total, own = shown[function]
        check_value(own, values["e.totalcpu"], f"{name}: {function}'s Self")
        check_value(total, values["i.totalcpu"], f"{name}: {function}'s Total")
        if values["e.totalcpu"] > 0:
            selves[function] = own
    return selves


def main():
    bin_dir, target_dir = (os.path.abspath(a) for a in sys.argv[1:3])
    er_print = os.path.join(bin_dir, "er_print")
    browser_or_skip().quit()  # skip before collecting anything
    with tempfile.TemporaryDirectory() as work:
        app = install_speedscope(work)
        run([os.path.join(bin_dir, "collect"), "-d", work, "-o", "threads.er", "-p", "on",
             os.path.join(target_dir, "threads_target"), "0.5"], cwd=work)
        experiment = os.path.join(work, "threads.er")
        for export, file in (("speedscope", "threads.speedscope.json"), ("folded", "threads.folded")):
            run([er_print, "-metrics", "e.totalcpu:name", "-export", export, os.path.join(work, file), experiment])

        def er_json(*args):
            return json.loads(run([er_print, "--format=json", *args, experiment]).stdout)

        threads = {r["tid"]: r for r in er_json("-thread_list")["rows"]}
        check(len(threads) == 4, f"threads_target's four threads: {list(threads)}")

        server = serve(work)
        driver = browser_or_skip()
        try:
            from selenium.webdriver.support.ui import WebDriverWait
            base = f"http://127.0.0.1:{server.server_address[1]}/"
            driver.get(f"{base}{app}#profileURL={base}threads.speedscope.json&view=sandwich")
            WebDriverWait(driver, LOADED_SECONDS).until(lambda d: d.execute_script(SANDWICH), "the export opened")
            profiles = read_profiles(driver, threads)
            seen = {}
            metrics = ("-metrics", "e.totalcpu:i.totalcpu:name", "-functions")
            for index, (name, thread, _) in enumerate(profiles):
                sandwich = show_profile(driver, index, len(profiles))
                check(sandwich["title"].startswith(name), f"profile {name} shown: {sandwich['title']!r}")
                functions = er_json("-thread_select", thread["thread"], *metrics)["rows"]
                for function, own in check_sandwich(sandwich, name, functions).items():
                    seen.setdefault(function, []).append(own)
            # Summed over the profiles, each function's Self is its exclusive time in the experiment.
            functions = er_json(*metrics)["rows"]
            for row in functions:
                function, want = row["name"], row["values"]["e.totalcpu"]
                if function != "<Total>" and want > 0:
                    check(function in seen, f"{function} ({want} s) in no profile")
                    value, half_digits = (sum(v) for v in zip(*map(shown_seconds, seen[function])))
                    check(abs(value - want) <= half_digits + 1e-9,
                          f"{function}'s Self in all profiles {seen[function]}, er_print {want} s")

            # The folded lines: one profile of every thread, in nanoseconds.
            driver.get("about:blank")  # the app reads its hash once, as it loads
            driver.get(f"{base}{app}#profileURL={base}threads.folded&view=sandwich")
            folded = WebDriverWait(driver, LOADED_SECONDS).until(lambda d: d.execute_script(SANDWICH),
                                                                 "the folded lines opened")
            check(folded["title"] is None, f"the folded lines are one profile: {folded['title']!r}")
            folded_selves = check_sandwich(folded, "threads.folded", functions, check_shown_nanoseconds)
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            check(not errors, f"console errors: {errors}")
        finally:
            driver.quit()
            server.shutdown()
    totals = {thread["name"]: total for _, thread, total in profiles}
    selves = {f: "+".join(t.split()[0] for t in times) for f, times in seen.items()}
    folded_selves = {f: t.split()[0] for f, t in folded_selves.items()}
    print(f"speedscope {SPEEDSCOPE.split('@')[1]}: profiles' totals {totals}; Self {selves}; "
          f"folded Self {folded_selves}; as er_print says")


if __name__ == "__main__":
    main()
