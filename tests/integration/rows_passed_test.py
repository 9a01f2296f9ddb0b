#!/usr/bin/env python3
"""A plugin view's text is the same whether its tables' rows are held until
the table is written or, past what er_print holds (LUMEN_ER_PRINT_ROWS_HELD),
written as the view gives them in a second pass, as wide as the first pass
measured them: on a real experiment, each VIEW's text with 0 and 1 rows held
equals its text with every row held, byte for byte, and has rows to pass.

Usage: rows_passed_test.py BIN_DIR VIEW[,VIEW...] -- COLLECT_ARGS...
(@WORK@ in COLLECT_ARGS is the test's directory)
"""
import os
import sys
import tempfile

from er_test_support import check, collect_experiment, run


def text_of(er_print, experiment, view, held):
    env = dict(os.environ, LUMEN_ER_PRINT_ROWS_HELD=str(held))
    return run([er_print, f"-{view}", experiment], env=env).stdout


def main():
    separator = sys.argv.index("--")
    bin_dir, views = sys.argv[1:separator]
    bin_dir = os.path.abspath(bin_dir)
    er_print = os.path.join(bin_dir, "er_print")
    with tempfile.TemporaryDirectory() as work:
        experiment = collect_experiment(bin_dir, work, "rows.er", sys.argv[separator + 1:])
        for view in views.split(","):
            held = text_of(er_print, experiment, view, 1 << 40)
            lines = held.count("\n")
            check(lines > 8, f"-{view} has rows to pass ({lines} lines):\n{held}")
            for few in (0, 1):
                passed = text_of(er_print, experiment, view, few)
                check(passed == held, f"-{view} with {few} rows held is the text of every row held:\n{passed}\nvs\n{held}")
            print(f"-{view}: {lines} lines, the same with 0 and 1 rows held")


if __name__ == "__main__":
    main()
