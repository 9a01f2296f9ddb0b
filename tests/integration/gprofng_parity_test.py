#!/usr/bin/env python3
"""Every command of gprofng's er_print table (the `help` list of gprofng
2.40, and the installed gprofng's own list where there is one) run by
er_print on a clock + heap + sync experiment of threads_target: each one
answers (exit 0 and output), or is refused by name with the reason. Numbers
with a known truth are checked: threads_target runs 4 threads, so lwp_list
counts 4 and the Threads index object has 4 rows; sample_list counts the
samples -sample_detail lists; hiding a load object keeps every total and
gives the folded row the sum of its functions; the sections of a stack
fragment add up. And what each command prints is checked against the
experiment: a selection's totals against the rows of what it selects, a
summary's rows against its function, the lists against what was recorded
(the plugins' manifests, the header, the index objects), procstats against
er_print's own rusage, en_desc against the descendants' own experiments,
version against the build.
Usage: gprofng_parity_test.py BIN_DIR TARGET_DIR WORK_DIR VERSION
"""
import csv
import io
import json
import os
import re
import resource
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
    bin_dir, target_dir, work, version = sys.argv[1:5]
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
    check_answers(er_print, experiment, json_of, bin_dir, version)
    check_descendants(er_print, os.path.join(bin_dir, "collect"), target_dir, work)
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



# er_print prints seconds to the microsecond in JSON; sums of n rows may
# differ from their total by rounding of each.
def close(a, b, rows=1):
    return abs(a - b) <= 1e-6 * (rows + 1)


def by_name(rows):
    return {r["name"]: r for r in rows}


def value(row, key):
    return row["values"][key] if row else 0


SELECTED = "e.totalcpu:e.heapalloccnt:e.syncn"


def check_selections(json_of):
    """A selection's <Total> is the sum of the rows of what it selects, as
    the index objects and -thread_list count them without it."""
    keys = SELECTED.split(":")
    threads = rows_of(json_of("-metrics", SELECTED, "-thread_list"))
    for command in ("-thread_select", "-lwp_select"):
        total = rows_of(json_of("-metrics", SELECTED, command, "1-2", "-functions"))[0]
        chosen = [r for r in threads if r["thread"] in ("1", "2")]
        for key in keys:
            want = sum(value(r, key) for r in chosen)
            check(close(value(total, key), want, 2), f"{command} 1-2: <Total> {key} {value(total, key)} is threads "
                  f"1 and 2's {want}")
        listed = json_of(command, "1-2", "-lwp_list").get("lwps", [{}])[0]
        check(listed.get("selection") == "1-2" and listed.get("total") == len(threads),
              f"{command} 1-2: lwp_list says selection 1-2 of {len(threads)}: {listed}")
    samples = rows_of(json_of("-metrics", SELECTED, "-indxobj", "Samples"))
    check(len(samples) > 2, f"indxobj Samples has samples: {samples}")
    for row in samples[1:3]:
        number = row["name"].split()[-1]
        total = rows_of(json_of("-metrics", SELECTED, "-sample_select", number, "-functions"))[0]
        for key in keys:
            check(close(value(total, key), value(row, key)), f"-sample_select {number}: <Total> {key} "
                  f"{value(total, key)} is the Samples row's {value(row, key)}")
    cpus = rows_of(json_of("-metrics", SELECTED, "-indxobj", "CPUs"))
    numbered = [r for r in cpus[1:] if int(r["name"].split()[-1]) >= 0]
    no_cpu = [r for r in cpus[1:] if int(r["name"].split()[-1]) < 0]
    listed = json_of("-cpu_list").get("cpus", [{}])[0]
    check(listed.get("total") == len(numbered) and len(numbered) > 0,
          f"cpu_list counts the {len(numbered)} CPUs the events name: {listed}")
    for row in numbered:
        number = row["name"].split()[-1]
        total = rows_of(json_of("-metrics", SELECTED, "-cpu_select", number, "-functions"))[0]
        for key in keys:
            # Events that record no CPU are kept by every CPU selection.
            want = value(row, key) + sum(value(r, key) for r in no_cpu)
            check(close(value(total, key), want, 2), f"-cpu_select {number}: <Total> {key} {value(total, key)} "
                  f"is CPU {number}'s {value(row, key)} and the events with no CPU")


def check_objects(json_of):
    """object_select keeps its objects' functions as they were and folds the
    rest; object_api shows a library's functions called from outside it;
    objects_default and object_show all undo both."""
    spec = "e.totalcpu:i.totalcpu:i.heapalloccnt"
    plain = by_name(rows_of(json_of("-metrics", spec, "-limit", "0", "-functions")))
    selected = rows_of(json_of("-metrics", spec, "-limit", "0", "-object_select", "threads_target", "-functions"))
    own = [n for n, r in plain.items() if r.get("load_object") == "threads_target"]
    check(sorted(own) == sorted(r["name"] for r in selected if r.get("load_object") == "threads_target"),
          f"object_select threads_target shows each of its functions: {[r['name'] for r in selected]}")
    for row in selected:
        name = row["name"]
        if name == "<Total>" or row.get("load_object") == "threads_target":
            check(row["values"] == plain[name]["values"], f"object_select: {name} as it was: {row} {plain.get(name)}")
        else:
            check(re.fullmatch(r"<.*>", name) is not None, f"object_select threads_target shows {name} of "
                  f"{row.get('load_object')} unfolded")
    # The stacks the heap recorded say which libc functions were called
    # from outside libc: those show, with what they called inside.
    stacks = [r["stack"] for r in json_of("-allocs").get("tables", [{}])[0].get("rows", [])]
    entries, inner = set(), set()
    for stack in stacks:
        for callee, caller in zip(stack, stack[1:]):
            if callee["load_object"] == "libc.so.6":
                (entries if caller["load_object"] != "libc.so.6" else inner).add(callee["function"])
    inner -= entries
    check(entries and inner, f"the heap's stacks hold libc functions called from outside and inside: {stacks}")
    api = by_name(rows_of(json_of("-metrics", spec, "-limit", "0", "-object_api", "libc.so.6", "-functions")))
    check(api["<Total>"]["values"] == plain["<Total>"]["values"], "object_api keeps <Total>")
    for name in entries:
        check(name in api and close(value(api.get(name), "i.heapalloccnt"), value(plain[name], "i.heapalloccnt")),
              f"object_api libc.so.6 shows {name}, called from outside libc, as it was")
    for name in inner:
        check(name not in api, f"object_api libc.so.6 hides {name}, called from libc only")
    libc = [r for r in plain.values() if r.get("load_object") == "libc.so.6"]
    shown = [r for r in api.values() if r.get("load_object") == "libc.so.6"]
    check(close(sum(value(r, "e.totalcpu") for r in shown), sum(value(r, "e.totalcpu") for r in libc), len(libc)),
          "object_api: libc's entry points hold all of libc's exclusive time")
    for undo in (["-objects_default"], ["-object_show", "all"]):
        again = by_name(rows_of(json_of("-metrics", spec, "-limit", "0", "-object_api", "libc.so.6", *undo,
                                        "-functions")))
        check(again == plain, f"{' '.join(undo)} after object_api shows every function as before")


def check_summaries(json_of):
    """psummary and lsummary rows are the hot PCs and lines: they add up to
    <Total>, and a function's PCs to the function."""
    functions = by_name(rows_of(json_of("-metrics", "e.totalcpu", "-limit", "0", "-functions")))
    total = value(functions["<Total>"], "e.totalcpu")
    for command in ("-psummary", "-lsummary", "-pcs"):
        document = json_of("-metrics", "e.totalcpu", "-limit", "0", command)
        if command == "-pcs":
            rows = [{"name": r["name"], "value": value(r, "e.totalcpu")} for r in rows_of(document)]
        else:
            records = document.get("summaries", [])
            rows = [{"name": r["name"], "value": r["e.totalcpu"]} for r in records]
        check(rows and rows[0]["name"] == "<Total>" and close(rows[0]["value"], total),
              f"{command}: <Total> is the functions' {total}: {rows[:1]}")
        check(close(sum(r["value"] for r in rows[1:]), total, len(rows)),
              f"{command}: the rows add up to <Total> {total}")
        if command != "-lsummary":
            for function in ("spin_a", "spin_b", "spin_main"):
                own = sum(r["value"] for r in rows if r["name"].startswith(function + " + "))
                want = value(functions[function], "e.totalcpu")
                check(want > 0 and close(own, want, len(rows)),
                      f"{command}: {function}'s PCs hold its {want} s: {own}")


def metrics_declared(bin_dir, plugins):
    """Each plugin's metrics and flavors, as its manifest declares them."""
    declared = {}
    for plugin in plugins:
        keyword = None
        with open(os.path.join(bin_dir, "..", "lib", "lumen", "plugins", plugin, "manifest.yaml")) as f:
            for line in f:
                m = re.match(r'\s*- keyword: "([^"]+)"', line)
                if m:
                    keyword = m.group(1)
                m = re.match(r"\s*flavors: (\d+)", line)
                if m and keyword:
                    declared[keyword] = int(m.group(1))
                    keyword = None
    return declared


def check_lists(er_print, experiment, json_of, bin_dir, version):
    """What the lists and records print, against what was recorded."""
    header = json_of("-header").get("experiments", [{}])[0]
    plugins = sorted(k[len("plugin."):] for k in header if k.startswith("plugin."))
    check(plugins == ["clock", "heap", "states", "sync"], f"the header names the plugins collected: {plugins}")
    check(header.get("command", "").split("/")[-1] == "threads_target 0.5",
          f"header names the target command: {header.get('command')}")
    check(header.get("collector_version") == version, f"header: collector version {version}: {header}")
    described = json_of("-describe").get("experiments", [{}])[0]
    check(sorted(described.get("data", "").split(", ")) == plugins, f"describe lists the plugins {plugins}: {described}")
    threads = json_of("-lwp_list").get("lwps", [{}])[0].get("total")
    samples = json_of("-sample_list").get("samples", [{}])[0].get("total")
    check(described.get("threads") == threads and described.get("samples") == samples,
          f"describe counts the {threads} threads and {samples} samples: {described}")
    for command in ("-experiment_list", "-exp_list"):
        rows = json_of(command).get("experiments", [])
        check(len(rows) == 1 and rows[0].get("command") == header.get("command")
              and rows[0].get("path") == experiment, f"{command} lists run.er and its command: {rows}")

    declared = metrics_declared(bin_dir, plugins)
    listed = {m["keyword"]: m for m in json_of("-metric_list").get("metrics", [])}
    check(set(listed) == set(declared), f"metric_list names every metric the plugins declare: {sorted(listed)} "
          f"against {sorted(declared)}")
    for command, flavor in (("-cmetric_list", 4), ("-gmetric_list", 4), ("-indx_metric_list", 1)):
        names = [m["keyword"] for m in json_of(command).get("metrics", [])]
        want = [k for k in listed if declared.get(k, 0) & flavor]
        check(names == want, f"{command}: the metrics with that flavor {want}: {names}")

    r = run([er_print, "-version", experiment])
    check(r.stdout == f"er_print (lumen) {version}\n", f"version is the build's {version}: {r.stdout!r}")

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    stats = json_of("-functions", "-procstats")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    record = {}
    for doc in stats.get("views", []):
        if doc.get("view") == "procstats":
            record = doc.get("records", [{}])[0]
    check(record.get("experiments") == 1 and record.get("metrics") == len(listed),
          f"procstats: 1 experiment, {len(listed)} metrics: {record}")
    # Its CPU time is its own, as the kernel counted it for the whole run.
    own = record.get("user_s", -1) + record.get("system_s", -1)
    check(0 < own <= used + 0.002, f"procstats: er_print's CPU time {own} s within its run's {used} s")

    overview = json_of("-overview")
    statistics = json_of("-statistics")
    functions = rows_of(json_of("-metrics", "e.totalcpu:e.heapalloccnt", "-functions"))
    events = sum(int(r["events"]) for r in rows_of(json_of("-thread_list")))
    for name, doc in (("overview", overview), ("statistics", statistics)):
        record = doc.get("records", [{}])[0]
        check(record.get("events") == events, f"{name}: events selected {record.get('events')} are the threads' "
              f"{events}: {record}")
        check(close(record.get("total.totalcpu", -1), value(functions[0], "e.totalcpu")),
              f"{name}: <Total> Total CPU Time is the functions' {value(functions[0], 'e.totalcpu')}: {record}")


def check_modes(er_print, experiment, json_of):
    """name, viewmode and printmode change how rows show, not what they hold."""
    plain = rows_of(json_of("-limit", "0", "-functions"))
    soname = rows_of(json_of("-limit", "0", "-name", "short:soname", "-functions"))
    # Artificial functions (<Total>, <Blocked, no stack>) belong to no object;
    # one named by its address (<static>@0x...) is its object's.
    def artificial(name):
        return name.startswith("<") and not name.startswith("<static>@")
    check([r["name"] if artificial(r["name"]) else f"{r['name']} [<{r['load_object']}>]" for r in plain] ==
          [r["name"] for r in soname], f"name short:soname adds each load object: {[r['name'] for r in soname]}")
    for mode in ("user", "expert", "machine"):
        # A C program's stacks are the same in every view mode.
        check(rows_of(json_of("-limit", "0", "-viewmode", mode, "-functions")) == plain,
              f"viewmode {mode}: a C program's functions as they were")
    r = run([er_print, "-limit", "0", "-printmode", ",", "-functions", experiment])
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    check([row["name"] for row in table] == [row["name"] for row in plain] and
          all(close(float(row["e.totalcpu"]), value(p, "e.totalcpu")) for row, p in zip(table, plain)),
          f"printmode , prints the functions as CSV: {r.stdout[:300]}")


def check_fragments(json_of):
    """crmfirst and crmlast leave the fragment that cprepend alone makes;
    cappend to an empty fragment is cprepend."""
    def fragment(*args):
        document = json_of("-metrics", "a.totalcpu", *args)
        document = document.get("views", [document])[-1]  # what the last command showed
        return {t.get("title"): [(r["name"], value(r, "a.totalcpu")) for r in t["rows"]]
                for t in document.get("tables", [])}
    spin_b = fragment("-cprepend", "spin_b")
    thread_b = fragment("-cprepend", "thread_b")
    check(len(spin_b) == 3 and len(thread_b) == 3, f"cprepend: three sections {spin_b} {thread_b}")
    check(fragment("-cappend", "spin_b") == spin_b, "cappend spin_b to nothing is cprepend spin_b")
    check(fragment("-cprepend", "spin_b", "-cprepend", "thread_b", "-crmfirst") == spin_b,
          "crmfirst takes thread_b off [thread_b, spin_b]")
    check(fragment("-cprepend", "spin_b", "-cprepend", "thread_b", "-crmlast") == thread_b,
          "crmlast takes spin_b off [thread_b, spin_b]")


def check_heap(json_of):
    """heapstat, leaks and allocs agree with each other and with the heap
    metrics of the functions."""
    total = rows_of(json_of("-metrics", "i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes",
                            "-functions"))[0]["values"]
    stat = json_of("-heapstat").get("summary", {})
    check(stat.get("allocations") == total["i.heapalloccnt"] and stat.get("bytes_allocated") ==
          total["i.heapallocbytes"] and stat.get("leaks") == total["i.heapleakcnt"] and stat.get("bytes_leaked") ==
          total["i.heapleakbytes"], f"heapstat's totals are <Total>'s {total}: {stat}")
    for command, count, byte in (("-allocs", "i.heapalloccnt", "i.heapallocbytes"),
                                 ("-leaks", "i.heapleakcnt", "i.heapleakbytes")):
        rows = json_of(command).get("tables", [{}])[0].get("rows", [])
        check(sum(value(r, "count") for r in rows) == total[count] and sum(value(r, "bytes") for r in rows) ==
              total[byte] and total[count] > 0, f"{command}: its stacks hold <Total>'s {total[count]} and "
              f"{total[byte]} bytes: {rows}")


def check_thresholds(json_of):
    """The disassembly marks ## the instructions at or above its threshold's
    share of the hottest: dthresh's, or sthresh's until dthresh is set; cc
    sets both, scc the source's and dcc the disassembly's."""
    cases = [(["-dthresh", "10"], 10), (["-dcc", "threshold=10"], 10), (["-cc", "threshold=10"], 10),
             (["-sthresh", "10"], 10), (["-scc", "threshold=10"], 10), (["-sthresh", "10", "-dthresh", "90"], 90),
             (["-dthresh", "90", "-scc", "threshold=10"], 90), ([], 75)]
    for options, percent in cases:
        rows = [r for r in rows_of(json_of("-metrics", "e.totalcpu", *options, "-disasm", "spin_b"))
                if r.get("kind") == "instruction"]
        hottest = max((value(r, "e.totalcpu") for r in rows), default=0)
        check(hottest > 0, f"{options}: spin_b's instructions hold its time")
        marked = [value(r, "e.totalcpu") for r in rows if r["marker"].strip() == "##"]
        want = [value(r, "e.totalcpu") for r in rows if hottest > 0 and value(r, "e.totalcpu") >= hottest * percent / 100]
        check(marked == want and len(want) > 0, f"{' '.join(options) or 'by default'}: the instructions at or above "
              f"{percent} % of the hottest {hottest} are marked: {marked}, not {want}")


def check_index_definitions(json_of):
    """An index object type defined over TSTAMP splits the events by time:
    its rows add up to <Total>, each row the events of its tenth of a
    second (the run lasts a few tenths, however fast the machine)."""
    rows = rows_of(json_of("-metrics", SELECTED, "-indxobj_define", "Tenths", "TSTAMP/100000000", "-indxobj", "Tenths"))
    check(len(rows) > 2, f"indxobj Tenths: the run's tenths of a second: {rows}")
    for key in SELECTED.split(":"):
        check(close(sum(value(r, key) for r in rows[1:]), value(rows[0], key), len(rows)),
              f"indxobj Tenths: the tenths add up to <Total> {key}")
    for row in rows[1:]:
        tenth = int(row["name"].split()[-1])
        window = f"time in {tenth / 10:.1f}-{(tenth + 1) / 10 - 1e-9:.9f}"
        total = rows_of(json_of("-metrics", SELECTED, "-filters", window, "-functions"))[0]
        check(close(value(total, "e.totalcpu"), value(row, "e.totalcpu")),
              f"indxobj Tenths {tenth}: {value(row, 'e.totalcpu')} s, what {window} selects "
              f"{value(total, 'e.totalcpu')}")


def check_answers(er_print, experiment, json_of, bin_dir, version):
    check_thresholds(json_of)
    check_index_definitions(json_of)
    check_selections(json_of)
    check_objects(json_of)
    check_summaries(json_of)
    check_lists(er_print, experiment, json_of, bin_dir, version)
    check_modes(er_print, experiment, json_of)
    check_fragments(json_of)
    check_heap(json_of)


def check_descendants(er_print, collect, target_dir, work):
    """en_desc off reads the founder alone, on reads every descendant too:
    the totals are those of the experiments read one by one."""
    r = run([collect, "-o", "desc.er", "-p", "on", os.path.join(target_dir, "descendants_target")], cwd=work)
    check(r.returncode == 0, f"collect descendants_target: {r.stderr}")
    founder = os.path.join(work, "desc.er")
    children = sorted(d for d in os.listdir(founder) if d.endswith(".er"))
    check(len(children) >= 3, f"descendants_target's descendants have experiments: {children}")

    def total(*args, path=founder):
        r = run([er_print, "--format=json", "-metrics", "e.totalcpu", *args, "-functions", path])
        check(r.returncode == 0, f"{args} {path}: {r.stderr}")
        return rows_of(json.loads(r.stdout))[0]["values"]["e.totalcpu"] if r.returncode == 0 else -1

    alone = total("-en_desc", "off")
    each = [total("-en_desc", "off", path=os.path.join(founder, c)) for c in children]
    # The shell system() runs burns no CPU of its own; the others do.
    check(alone > 0 and len([t for t in each if t > 0]) >= 3, f"the processes recorded CPU time: {alone} {each}")
    check(close(total("-en_desc", "on"), alone + sum(each), len(each) + 1),
          f"en_desc on: the founder's {alone} and its descendants' {each}")
    listed = json.loads(run([er_print, "--format=json", "-en_desc", "off", "-exp_list", founder]).stdout)
    check(len(listed.get("experiments", [])) == 1, f"en_desc off lists the founder alone: {listed}")


main()
