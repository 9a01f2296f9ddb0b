#!/usr/bin/env python3
"""How long the analyzer takes to answer a change of filter, asked at once
after the first view (the events decoded when asked) and asked once the
analyzer decoded them while the page was quiet (its /api/session says
"events_decoded"). Reports figures and never judges them.

  bench/analysis/analyzer_idle.py BIN_DIR EXPERIMENT [FILTER]

FILTER: the filters asked, {k} taking 3, 4 and 5 (default "sample in 1-{k}").
"""
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse


def start(bin_dir, experiment):
    process = subprocess.Popen([os.path.join(bin_dir, "analyzer"), "--no-browser", "--port", "0", experiment],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    url = process.stdout.readline().split(" ", 1)[1].strip()
    parts = urllib.parse.urlsplit(url)
    return process, parts.port, urllib.parse.parse_qs(parts.query)["token"][0]


def ask(port, token, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", path, headers={"X-Lumen-Token": token})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        sys.exit(f"{path}: {response.status} {body[:200]!r}")
    return body


def timed_view(port, token, **query):
    started = time.monotonic()
    ask(port, token, "/api/view?" + urllib.parse.urlencode(query))
    return time.monotonic() - started


def main():
    bin_dir, experiment = sys.argv[1], sys.argv[2]
    template = sys.argv[3] if len(sys.argv) > 3 else "sample in 1-{k}"
    for quiet in (False, True):
        process, port, token = start(bin_dir, experiment)
        try:
            first = timed_view(port, token, cmd="functions")
            waited = 0.0
            if quiet:
                started = time.monotonic()
                while not json.loads(ask(port, token, "/api/session"))["events_decoded"]:
                    time.sleep(0.05)
                waited = time.monotonic() - started
            changes = [timed_view(port, token, cmd="functions", filters=template.format(k=k)) for k in (3, 4, 5)]
            timeline = timed_view(port, token, cmd="timeline")
        finally:
            process.terminate()
            process.wait()
        how = f"once decoded ({waited:.2f} s after the first view)" if quiet else "asked at once"
        print(f"{how}: first view {first:.2f} s, filter changes "
              f"{', '.join(f'{c:.3f}' for c in changes)} s, timeline {timeline:.2f} s")


if __name__ == "__main__":
    main()
