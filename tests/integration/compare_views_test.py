#!/usr/bin/env python3
"""er_print -compare on|delta|ratio in every metric view, on two runs of
threads_target (the second does twice the work): each view of the two
experiments side by side has, in experiment k's columns, exactly what the
view of experiment k alone shows, row by row (matched by what a row stands
for); delta columns are the differences from the first; ratio columns are
labelled as ratios and hold the quotients.

Usage: compare_views_test.py BIN_DIR TARGET_DIR
"""
import json
import os
import sys
import tempfile

from er_test_support import run

VIEWS = [["-functions"], ["-callers-callees"], ["-calltree"], ["-objects"], ["-lines"], ["-pcs"],
         ["-source", "spin_b"], ["-disasm", "spin_b"], ["-thread_list"]]
IDENTIFYING = ("kind", "line", "address", "file", "section", "source_line")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message)


def keyed(rows, tree, threads):
    """Rows by what they stand for: name, object, identifying facts (and in a
    call tree the path from the root), numbered when alike."""
    out, path, seen = {}, [], {}
    for row in rows:
        prefix = ()
        if tree:
            del path[row["depth"]:]
            prefix = tuple(path)
            path.append(row["name"])
        # A source file found outside the directories recorded from is named
        # with them, and two experiments side by side have more of them.
        name = row["name"].split(" (found outside the directories ")[0]
        key = (prefix, name, "" if threads else row["load_object"],
               tuple((f, str(row[f])) for f in IDENTIFYING if f in row))
        n = seen.get(key, 0)
        seen[key] = n + 1
        out[key + (n,)] = row
    return out


def compare_rows(view, own, shown, k, mode, first, nested, tree, threads):
    own_rows = keyed(own, tree, threads)
    shown_rows = keyed(shown, tree, threads)
    first_rows = keyed(first, tree, threads) if first is not None else {}
    for key, row in own_rows.items():
        if key not in shown_rows:
            check(False, f"{view}: row {key} of experiment {k} missing side by side")
            continue
        got = shown_rows[key]["values"]
        for metric, value in row["values"].items():
            want = float(value)
            if mode == "delta" and k == 2:
                want -= float(first_rows[key]["values"][metric]) if key in first_rows else 0.0
            if mode == "ratio" and k == 2:
                base = float(first_rows[key]["values"][metric]) if key in first_rows else 0.0
                want = want / base if base else 0.0
            have = float(got[f"{k}:{metric}"])
            check(abs(have - want) <= 1e-6 * max(1.0, abs(want)) + 2e-3 * (mode == "ratio"),
                  f"{view} {mode}: {key} {k}:{metric} = {have}, alone {want}")
        if nested:
            for side in ("callers", "callees"):
                first_side = first_rows[key].get(side, []) if key in first_rows else None
                compare_rows(f"{view} {side} of {key[1]}", row.get(side, []), shown_rows[key].get(side, []), k, mode,
                             first_side, False, False, False)


def main():
    bin_dir, target_dir = (os.path.abspath(a) for a in sys.argv[1:3])
    er_print = os.path.join(bin_dir, "er_print")
    with tempfile.TemporaryDirectory() as work:
        runs = []
        for name, scale in (("a.er", "0.3"), ("b.er", "0.6")):
            run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name, "-p", "on", "-states", "off",
                 os.path.join(target_dir, "threads_target"), scale], cwd=work)
            runs.append(os.path.join(work, name))

        def view_of(args, experiments):
            return json.loads(run([er_print, "--format=json", "-metrics", "e.totalcpu:i.totalcpu:name", *args,
                                   *experiments]).stdout)

        for args in VIEWS:
            view = " ".join(args)
            alone = [view_of(args, [e]) for e in runs]
            nested = args == ["-callers-callees"]
            tree = args == ["-calltree"]
            threads = args == ["-thread_list"]
            for mode in ("on", "delta", "ratio"):
                both = view_of(["-compare", mode, *args], runs)
                specs = [m["spec"] for m in both["metrics"]]
                own_specs = [m["spec"] for m in alone[0]["metrics"]]
                check(specs == [f"{k}:{spec}" for k in (1, 2) for spec in own_specs],
                      f"{view} {mode}: a column group per experiment: {specs}, alone {own_specs}")
                if mode == "ratio":
                    second = [m for m in both["metrics"] if m["spec"].startswith("2:")]
                    check(all(m["unit"] == "ratio" and "ratio" in m["title"] for m in second),
                          f"{view}: ratio columns are labelled as ratios: {second}")
                for k in (1, 2):
                    compare_rows(view, alone[k - 1]["rows"], both["rows"], k, mode,
                                 alone[0]["rows"] if k == 2 else None, nested, tree, threads)
    if failures:
        sys.exit(f"FAILED: {len(failures)} checks")
    print(f"compare: {len(VIEWS)} views side by side, as differences and as ratios, equal to each experiment alone")


if __name__ == "__main__":
    main()
