#!/usr/bin/env python3
"""A plugin view's text and CSV are the same whether its tables' rows are
held until the table is written or, past what er_print holds
(LUMEN_ER_PRINT_ROWS_HELD), written as the view gives them in a second pass
(text as wide as the first pass measured it): on a real experiment, each
VIEW's text and CSV with 0 and 1 rows held equal those with every row held,
byte for byte, and have rows to pass.

Usage: rows_passed_test.py BIN_DIR VIEW[,VIEW...] -- COLLECT_ARGS...
(@WORK@ in COLLECT_ARGS is the test's directory)
"""
import os
import sys
import tempfile

from er_test_support import check, collect_experiment, run


def text_of(er_print, experiment, view, held, output_format):
    env = dict(os.environ, LUMEN_ER_PRINT_ROWS_HELD=str(held))
    return run([er_print, f"--format={output_format}", f"-{view}", experiment], env=env).stdout


def main():
    separator = sys.argv.index("--")
    bin_dir, views = sys.argv[1:separator]
    bin_dir = os.path.abspath(bin_dir)
    er_print = os.path.join(bin_dir, "er_print")
    with tempfile.TemporaryDirectory() as work:
        experiment = collect_experiment(bin_dir, work, "rows.er", sys.argv[separator + 1:])
        for view in views.split(","):
            for output_format in ("text", "csv"):
                held = text_of(er_print, experiment, view, 1 << 40, output_format)
                lines = held.count("\n")
                # Text: a title and header lines first; CSV: a header line.
                check(lines > (8 if output_format == "text" else 2),
                      f"-{view} {output_format} has rows to pass ({lines} lines):\n{held}")
                for few in (0, 1):
                    passed = text_of(er_print, experiment, view, few, output_format)
                    check(passed == held, f"-{view} {output_format} with {few} rows held is that of every row held:\n"
                                          f"{passed}\nvs\n{held}")
                print(f"-{view} {output_format}: {lines} lines, the same with 0 and 1 rows held")


if __name__ == "__main__":
    main()
