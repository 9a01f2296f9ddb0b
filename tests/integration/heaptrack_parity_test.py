#!/usr/bin/env python3
"""Heap tracing against heaptrack: a threaded C program (heap_threads_target)
and a C++ std::thread one (heap_cpp_threads_target), each run under heaptrack
and under `collect -H on`, must show the same allocation count, bytes
allocated, leaks and peak; and each tool the counts the target keeps of
itself (heap_truth.h). Both see what the program's libraries allocate
before main (libstdc++'s emergency exception pool: both tools' preloaded
libraries bring libstdc++ in).

heaptrack_print rounds bytes (39.95M), so the figures come from heaptrack's
own data file (zstd text: 'a SIZE TRACE' an allocation's kind, '+ KIND' an
allocation, '- KIND' a free, 't IP PARENT' a stack node, 'i IP MODULE
FUNCTION...' its frames, 's LEN TEXT' the strings), checked against what
heaptrack_print prints at its precision.

Where the two must differ, the difference is stated exactly:
  * pthread_create's calloc of the new thread's TLS vector is 16 bytes per
    loaded object with TLS, plus 256 (glibc's allocate_dtv), and each tool
    preloads its own such objects: bytes, peak and leaked bytes differ by
    what the target measured of its vectors under each tool (they stay
    with the cached stacks: live at the peak, leaked at the end).
Both free libstdc++'s emergency pool at exit (__gnu_cxx::__freeres, as
valgrind's --run-cxx-freeres), so neither counts it a leak: heaptrack's free
of it is checked to be there.
Exit 77 (skipped) when heaptrack is not installed.
Usage: heaptrack_parity_test.py BIN_DIR TARGET_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

DEADLINE = 120  # seconds for any one command; the ctest TIMEOUT bounds the whole
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message)


def run(argv, env=None):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE, env=env, start_new_session=True)
    if result.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(argv), result.returncode, result.stderr[-2000:]))
    return result


def with_truth(path):
    env = dict(os.environ)
    env["LUMEN_TEST_TRUTH"] = path
    return env


class HeaptrackData:
    """Exact figures from heaptrack's data file, and each allocation kind's
    functions (a frame's inlined callers too)."""

    def __init__(self, text):
        strings, frames, parents, trace_ip, kinds = [None], [None], [None], [None], []
        self.allocations = self.bytes = self.peak = 0
        in_use = 0
        allocated, freed = [], []
        for line in text.splitlines():
            fields = line.split(" ")
            tag = fields[0]
            if tag == "s":
                strings.append(line.split(" ", 2)[2] if len(fields) > 2 else "")
            elif tag == "i":
                frames.append([int(f, 16) for f in fields[3::3]])  # function string of each (inlined) frame
            elif tag == "t":
                trace_ip.append(int(fields[1], 16))
                parents.append(int(fields[2], 16))
            elif tag == "a":
                kinds.append((int(fields[1], 16), int(fields[2], 16)))
                allocated.append(0)
                freed.append(0)
            elif tag in "+-" and len(fields) == 2:
                kind = int(fields[1], 16)
                size = kinds[kind][0]
                if tag == "+":
                    self.allocations += 1
                    self.bytes += size
                    allocated[kind] += 1
                    in_use += size
                    self.peak = max(self.peak, in_use)
                else:
                    freed[kind] += 1
                    in_use -= size
        self.kinds = []
        for (size, trace), made, gone in zip(kinds, allocated, freed):
            functions = set()
            while trace != 0:
                functions.update(strings[f] for f in frames[trace_ip[trace]] if f != 0)
                trace = parents[trace]
            self.kinds.append({"size": size, "made": made, "freed": gone, "functions": functions})
        self.leaks = sum(k["made"] - k["freed"] for k in self.kinds)
        self.leaked_bytes = sum((k["made"] - k["freed"]) * k["size"] for k in self.kinds)

    def under(self, function):
        """Allocations, bytes, leaks and leaked bytes with `function` on the stack."""
        kinds = [k for k in self.kinds if function in k["functions"]]
        return (sum(k["made"] for k in kinds), sum(k["made"] * k["size"] for k in kinds),
                sum(k["made"] - k["freed"] for k in kinds), sum((k["made"] - k["freed"]) * k["size"] for k in kinds))


def printed_bytes(text, label):
    """A heaptrack_print total ('peak heap memory consumption: 39.95M') and its precision."""
    match = re.search(re.escape(label) + r": ([0-9.]+)([KMG]?)B?\n", text)
    if match is None:
        sys.exit("heaptrack_print printed no '%s':\n%s" % (label, text))
    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[match.group(2)]
    decimals = len(match.group(1).partition(".")[2])
    return float(match.group(1)) * scale, 0.5 * scale * 10 ** -decimals


def under_heaptrack(target, work):
    name = os.path.basename(target)
    output = os.path.join(work, "heaptrack." + name)
    truth_file = os.path.join(work, name + ".heaptrack.json")
    run(["heaptrack", "-o", output, target], env=with_truth(truth_file))
    data_file = next(output + suffix for suffix in (".zst", ".gz", "") if os.path.exists(output + suffix))
    if data_file.endswith(".zst"):
        text = run(["zstd", "-dc", data_file]).stdout
    elif data_file.endswith(".gz"):
        text = run(["gzip", "-dc", data_file]).stdout
    else:
        text = open(data_file).read()
    data = HeaptrackData(text)
    printed = run(["heaptrack_print", "-a", "0", "-p", "0", "-T", "0", "-f", data_file]).stdout
    calls = re.search(r"calls to allocation functions: (\d+)", printed)
    check(calls is not None and int(calls.group(1)) == data.allocations,
          "%s: heaptrack_print's calls %s, its data file's allocations %d" % (name, calls and calls.group(1), data.allocations))
    for label, value in (("peak heap memory consumption", data.peak), ("total memory leaked", data.leaked_bytes)):
        shown, precision = printed_bytes(printed, label)
        check(abs(shown - value) <= precision, "%s: heaptrack_print's %s %g, its data file's %d" % (name, label, shown, value))
    with open(truth_file) as f:
        return data, json.load(f)["functions"]


def under_lumen(bin_dir, target, work):
    name = os.path.basename(target)
    experiment = os.path.join(work, name + ".er")
    shutil.rmtree(experiment, ignore_errors=True)
    truth_file = os.path.join(work, name + ".lumen.json")
    run([os.path.join(bin_dir, "collect"), "-o", experiment, "-H", "on", target], env=with_truth(truth_file))
    er_print = os.path.join(bin_dir, "er_print")
    heap = json.loads(run([er_print, "--format=json", "-heap", experiment]).stdout)["summary"]
    metrics = "i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes:name"
    view = json.loads(run([er_print, "--format=json", "-metrics", metrics, "-functions", experiment]).stdout)
    rows = {row["name"]: row["values"] for row in view["rows"]}
    with open(truth_file) as f:
        return heap, rows, json.load(f)["functions"]


def compare(bin_dir, target, work):
    name = os.path.basename(target)
    heaptrack, heaptrack_truth = under_heaptrack(target, work)
    lumen, rows, lumen_truth = under_lumen(bin_dir, target, work)
    # Each tool against what the target counted of itself under it.
    for function, truth in lumen_truth.items():
        row = rows.get(function, {})
        got = tuple(row.get("i." + m, 0) for m in ("heapalloccnt", "heapallocbytes", "heapleakcnt", "heapleakbytes"))
        want = (truth["allocations"], truth["bytes"], truth["leaks"], truth["leaked_bytes"])
        check(got == want, "%s under lumen: %s has %s, the target counted %s" % (name, function, got, want))
    for function, truth in heaptrack_truth.items():
        want = (truth["allocations"], truth["bytes"], truth["leaks"], truth["leaked_bytes"])
        got = heaptrack.under(function)
        check(got == want, "%s under heaptrack: %s has %s, the target counted %s" % (name, function, got, want))
    vectors = lumen_truth["allocate_dtv"]["bytes"] - heaptrack_truth["allocate_dtv"]["bytes"]
    pool = [k for k in heaptrack.kinds if "_dl_init" in k["functions"] and k["freed"] > 0]
    pool_count = sum(k["freed"] for k in pool)
    pool_bytes = sum(k["freed"] * k["size"] for k in pool)
    check(pool_count == 1, "%s: heaptrack freed %d blocks the libraries' initializers made, not the one pool"
          % (name, pool_count))
    print("%s: heaptrack %d allocations, %d bytes, %d leaks of %d bytes, peak %d; TLS vectors %+d bytes under lumen, "
          "heaptrack's own free of %d bytes at exit" % (name, heaptrack.allocations, heaptrack.bytes, heaptrack.leaks,
                                                        heaptrack.leaked_bytes, heaptrack.peak, vectors, pool_bytes))
    print("%s: lumen %d allocations, %d bytes, %d leaks of %d bytes, peak %d" % (
        name, lumen["allocations"], lumen["bytes_allocated"], lumen["leaks"], lumen["bytes_leaked"],
        lumen["peak_bytes"]))
    expected = {"allocations": heaptrack.allocations, "bytes_allocated": heaptrack.bytes + vectors,
                "leaks": heaptrack.leaks, "bytes_leaked": heaptrack.leaked_bytes + vectors,
                "peak_bytes": heaptrack.peak + vectors}
    for key, value in expected.items():
        check(lumen[key] == value, "%s: lumen's %s %d, heaptrack's with the stated difference %d"
              % (name, key, lumen[key], value))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    bin_dir, target_dir, work = sys.argv[1:]
    if shutil.which("heaptrack") is None or shutil.which("heaptrack_print") is None:
        print("SKIP: heaptrack is not installed")
        return 77
    os.makedirs(work, exist_ok=True)
    for target in ("heap_threads_target", "heap_cpp_threads_target"):
        compare(bin_dir, os.path.join(target_dir, target), work)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
