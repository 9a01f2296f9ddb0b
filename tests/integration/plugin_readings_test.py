#!/usr/bin/env python3
"""A plugin's views read its records once while the selection stays
(lumen_view_host.kept), as er_print's session keeps them: in one er_print
session on a real experiment,

  - FIRST reads the plugin's data file;
  - then every DATA_FILE of the experiment is overwritten with bytes no
    record has;
  - SHARED, a view of the same reading, still answers, and exactly as a
    fresh er_print answers it on an untouched copy;
  - OTHER, a view that reads otherwise, reads the file and says where it
    could not (the file and offset) ("-": every view shares the reading);
  - after the selection changes (filters), SHARED reads again and says so.

Usage: plugin_readings_test.py BIN_DIR DATA_FILE FIRST SHARED OTHER -- COLLECT_ARGS...
(@WORK@ in COLLECT_ARGS is the test's directory)
"""
import os
import shutil
import sys
import tempfile

from er_test_support import PromptSession, check, collect_experiment, run


def corrupt(experiment, data_file):
    """Overwrites the records of each block of every `data_file` (headers kept) with 0xff; returns how many files."""
    files = [os.path.join(d, f) for d, _, names in os.walk(experiment) for f in names if f == data_file]
    for path in files:
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            for block in range(0, size, 1 << 16):
                f.seek(block + 64)
                f.write(b"\xff" * min(4096, max(0, size - block - 64)))
    return len(files)


def main():
    separator = sys.argv.index("--")
    bin_dir, data_file, first, shared, other = sys.argv[1:separator]
    bin_dir = os.path.abspath(bin_dir)
    er_print = os.path.join(bin_dir, "er_print")
    with tempfile.TemporaryDirectory() as work:
        experiment = collect_experiment(bin_dir, work, "read.er", sys.argv[separator + 1:])
        untouched = os.path.join(work, "untouched.er")
        shutil.copytree(experiment, untouched, symlinks=True)
        want = run([er_print, f"-{shared}", untouched], cwd=work).stdout

        session = PromptSession(er_print, experiment)
        try:
            answer, problem = session.ask(first)
            check(problem == "" and answer.strip() != "", f"-{first} answers: {problem}")
            check(corrupt(experiment, data_file) > 0, f"a {data_file} in the experiment")
            answer, problem = session.ask(shared)
            check(problem == "", f"-{shared} reads nothing again: {problem}")
            check(answer == want, f"-{shared} is what a fresh er_print answers:\n{answer}\nvs\n{want}")
            if other != "-":
                answer, problem = session.ask(other)
                check(data_file in problem and "offset" in problem,
                      f"-{other} reads the records, and says where it could not: {problem!r}")
            session.ask("filters time >= 0")
            answer, problem = session.ask(shared)
            check(data_file in problem and "offset" in problem,
                  f"after the selection changed, -{shared} reads again: {problem!r}")
        finally:
            session.close()
        again = f"-{other} and a new selection read" if other != "-" else "a new selection reads"
        print(f"-{first} then -{shared} read {data_file} once; {again} it again")


if __name__ == "__main__":
    main()
