#!/usr/bin/env python3
"""Every command of gprofng's er_print table (the `help` list of gprofng
2.40, and the installed gprofng's own list where there is one) run by
er_print on a clock + heap + sync experiment of threads_target: each one
answers (exit 0 and output), or is refused by name with the reason. Numbers
with a known truth are checked: threads_target runs 4 threads, so lwp_list
counts 4 and the Threads index object has 4 rows; sample_list counts the
samples -sample_detail lists; hiding a load object keeps every total and
gives the folded row the sum of its functions; the sections of a stack
fragment add up.
Usage: gprofng_parity_test.py BIN_DIR TARGET_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

DEADLINE = 120  # seconds for any one command; the ctest TIMEOUT bounds the whole
failures = []

# gprofng 2.40's help, command names with their alternate spellings.
GPROFNG_COMMANDS = """
functions metrics sort fsummary fsingle callers-callees gprof csingle cprepend cappend crmfirst crmlast
calltree ctree leaks allocs heap heapstat ioactivity iodetail iocallstack iostat pcs psummary lines lsummary
source disasm scc sthresh dcc cc dthresh setpath addpath pathmap preload_libdirs indxobj indxobj_list
indxobj_define deadlocks dsummary experiment_list exp_list sample_list lwp_list thread_list cpu_list filters
describe sample_select lwp_select thread_select cpu_select object_list object_show object_hide object_api
objects_default object_select metric_list cmetric_list gmetric_list indx_metric_list outfile appendfile limit
name viewmode compare printmode header objects overview sample_detail statistics open_exp add_exp drop_exp
dmetrics dsort en_desc ifreq procstats script version quit exit help
""".split()

# Commands that may be refused here, with a word their reason must hold.
MAY_REFUSE = {"deadlocks": "thread analyzer", "dsummary": "thread analyzer", "ifreq": "instrumentation",
              "preload_libdirs": "libraries"}


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE, start_new_session=True, **kw)


def gprofng_list(work):
    """The installed gprofng's own command list, when gprofng is installed."""
    gprofng = shutil.which("gprofng")
    if not gprofng:
        return []
    experiment = os.path.join(work, "gprofng-help.er")
    if run([gprofng, "collect", "app", "-O", experiment, "/bin/true"], cwd=work).returncode != 0:
        return []
    script = os.path.join(work, "help.script")
    with open(script, "w") as f:
        f.write("help\n")
    out = run([gprofng, "display", "text", "-script", script, experiment]).stdout
    names = []
    for line in out.splitlines():
        m = re.match(r"^     ([a-z][a-z_-]*)(\[([a-z_]+)\])?", line)
        if m:
            names += [m.group(1)] + ([m.group(3)] if m.group(3) else [])
    return names


def main():
    bin_dir, target_dir, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    er_print = os.path.join(bin_dir, "er_print")
    r = run([os.path.join(bin_dir, "collect"), "-o", "run.er", "-p", "on", "-H", "on", "-s", "on", "-S", "0.1",
             os.path.join(target_dir, "threads_target"), "0.5"], cwd=work)
    if r.returncode != 0:
        sys.exit(f"collect failed: {r.stderr}")
    experiment = os.path.join(work, "run.er")

    installed = gprofng_list(work)
    commands = list(GPROFNG_COMMANDS)
    for name in installed:
        if name not in commands:
            commands.append(name)
    print(f"{len(commands)} commands ({len(installed)} from the installed gprofng)")

    script = os.path.join(work, "cmds.script")
    with open(script, "w") as f:
        f.write("functions\n")
    out_file = os.path.join(work, "out.txt")
    # What each command needs before and after it to answer with output.
    arguments = {
        "metrics": ["e.%user:i.user:name"], "sort": ["-e.user"], "fsingle": ["spin_b", "1"], "csingle": ["spin_b"],
        "cprepend": ["spin_b"], "cappend": ["spin_b"], "source": ["spin_b"], "disasm": ["spin_b"],
        "scc": ["threshold=50"], "sthresh": ["50"], "dcc": ["threshold=50"], "cc": ["threshold=50"],
        "dthresh": ["50"], "setpath": ["."], "addpath": ["."], "pathmap": ["/old", "/new"],
        "preload_libdirs": ["/usr/lib"], "indxobj": ["Threads"], "indxobj_define": ["Halves", "TSTAMP/500000000"],
        "dsummary": ["all"], "filters": ["thread in 1-4"], "sample_select": ["all"], "lwp_select": ["all"],
        "thread_select": ["1-4"], "cpu_select": ["all"], "object_show": ["all"], "object_hide": ["libc.so.6"],
        "object_api": ["libc.so.6"], "object_select": ["threads_target"], "outfile": [out_file],
        "appendfile": [out_file], "limit": ["5"], "name": ["short"], "viewmode": ["user"], "compare": ["off"],
        "printmode": ["text"], "header": ["1"], "sample_detail": ["1"], "statistics": ["1"],
        "open_exp": [experiment], "add_exp": [experiment], "drop_exp": ["2"], "dmetrics": ["e.user:name"],
        "dsort": ["e.user"], "en_desc": ["on"], "script": [script],
    }
    before = {"crmfirst": ["-cprepend", "spin_b", "-cprepend", "thread_b"],
              "crmlast": ["-cprepend", "spin_b", "-cprepend", "thread_b"],
              "drop_exp": ["-add_exp", experiment], "quit": ["-functions"], "exit": ["-functions"]}
    settings = {"metrics", "sort", "sthresh", "scc", "dcc", "cc", "dthresh", "setpath", "addpath", "pathmap",
                "indxobj_define", "filters", "sample_select", "lwp_select", "thread_select", "cpu_select",
                "object_show", "object_hide", "object_api", "objects_default", "object_select", "limit", "name",
                "viewmode", "compare", "printmode", "open_exp", "add_exp", "drop_exp", "dmetrics", "dsort",
                "en_desc", "outfile", "appendfile"}
    for command in commands:
        argv = [er_print] + before.get(command, []) + ["-" + command] + arguments.get(command, [])
        if command in settings:
            argv.append("-functions")
        argv.append(experiment)
        r = run(argv, cwd=work)
        output = r.stdout
        if command in ("outfile", "appendfile") and os.path.exists(out_file):
            with open(out_file) as f:
                output += f.read()
            os.remove(out_file)
        if r.returncode == 0 and output.strip():
            continue
        reason = MAY_REFUSE.get(command)
        refused = r.returncode != 0 and f"{command}: not offered here" in r.stderr
        check(reason is not None and refused and reason in r.stderr,
              f"-{command} neither answered nor was refused by name with its reason "
              f"(exit {r.returncode}; stdout {len(r.stdout)} bytes; stderr: {r.stderr.strip()[:300]})")

    def json_of(*args):
        r = run([er_print, "--format=json", *args, experiment])
        check(r.returncode == 0, f"{' '.join(args)} failed: {r.stderr}")
        return json.loads(r.stdout) if r.returncode == 0 else {}

    check_numbers(json_of)
    if failures:
        sys.exit(f"{len(failures)} failure(s)")
    print("all commands answered")


def rows_of(document):
    return document.get("rows", [])


def check_numbers(json_of):
    lwps = json_of("-lwp_list")
    # Every thread that wrote data counts, the collector's own (the off-CPU
    # sampler, the heap compressor) among them; threads_target's 4 have events.
    listed = rows_of(json_of("-thread_list"))
    with_events = [r for r in listed if float(r.get("events", 0)) > 0]
    check([r["total"] for r in lwps.get("lwps", [])] == [len(listed)], f"lwp_list counts the listed threads: {lwps}")
    check(len(with_events) == 4, f"threads_target's 4 threads have events: {listed}")
    samples = json_of("-sample_list")
    detail = json_of("-sample_detail")
    listed = len([r for r in rows_of(detail) if r.get("name") != "<Total>"])
    check([r["total"] for r in samples.get("samples", [])] == [listed] and listed > 0,
          f"sample_list counts the {listed} samples -sample_detail lists: {samples}")

    threads = json_of("-metrics", "e.user", "-indxobj", "Threads")
    rows = rows_of(threads)
    check(len(rows) == 5, f"indxobj Threads: <Total> and 4 threads: {[r.get('name') for r in rows]}")
    if rows:
        check(abs(sum(r["values"]["e.user"] for r in rows[1:]) - rows[0]["values"]["e.user"]) < 1e-6,
              "indxobj Threads: the threads add up to <Total>")

    plain = rows_of(json_of("-metrics", "e.user:i.user", "-limit", "0", "-functions"))
    hidden = rows_of(json_of("-metrics", "e.user:i.user", "-object_hide", "libc.so.6", "-functions"))
    if plain and hidden:
        check(abs(plain[0]["values"]["e.user"] - hidden[0]["values"]["e.user"]) < 1e-9, "object_hide keeps <Total>")
        libc = sum(r["values"]["e.user"] for r in plain if r.get("load_object") == "libc.so.6")
        folded = [r for r in hidden if r["name"] == "<libc.so.6>"]
        check(len(folded) <= 1 and abs((folded[0]["values"]["e.user"] if folded else 0) - libc) < 1e-6,
              f"<libc.so.6> holds its functions' {libc} s: {folded}")
        check(not any(r.get("load_object") == "libc.so.6" and r["name"] != "<libc.so.6>" for r in hidden),
              "no libc function shows while libc is hidden")
        check(abs(sum(r["values"]["e.user"] for r in plain[1:]) - sum(r["values"]["e.user"] for r in hidden[1:])) < 1e-6,
              "object_hide keeps the sum of the functions' exclusive time")

    fragment = json_of("-metrics", "a.user", "-cprepend", "spin_b")
    tables = {t.get("title"): t for t in fragment.get("tables", [])}
    check(set(tables) == {"Callers", "Stack Fragment", "Callees"}, f"cprepend sections: {list(tables)}")
    if len(tables) == 3:
        callers = sum(r["values"]["a.user"] for r in tables["Callers"]["rows"])
        own = tables["Stack Fragment"]["rows"][-1]["values"]["a.user"]
        callees = sum(r["values"]["a.user"] for r in tables["Callees"]["rows"])
        check(callers > 0 and abs(callers - (own + callees)) < 1e-6,
              f"cprepend spin_b: callers {callers} = self {own} + callees {callees}")
    two = json_of("-metrics", "a.user", "-cprepend", "spin_b", "-cprepend", "thread_b")
    t2 = {t.get("title"): t for t in two.get("tables", [])}
    if len(t2) == 3 and len(tables) == 3:
        check([r["name"] for r in t2["Stack Fragment"]["rows"]][:1] == ["thread_b"],
              "cprepend thread_b puts thread_b first in the fragment")
        check(abs(sum(r["values"]["a.user"] for r in t2["Callers"]["rows"]) - callers) < 1e-6,
              "thread_b always calls spin_b: the fragment's value is spin_b's")


main()
