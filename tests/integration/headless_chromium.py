"""Headless Chromium driven by Selenium, for the tests that open lumen's
output in a browser: chromium and chromedriver each on a loopback port of
their own, a fresh profile per run, and the skip (exit 77) when the browser
or Selenium is not installed."""
import os
import shutil
import sys
import tempfile

SKIP = 77


def skip(missing):
    print(f"SKIPPED: {missing} (tools/install-test-dependencies.sh)")
    sys.exit(SKIP)


def browser_or_skip():
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not (os.path.exists(chromedriver) and os.path.exists(chromium)):
        skip("chromium and chromium-driver are not installed")
    try:
        from selenium import webdriver
    except ImportError:
        skip("python3-selenium is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    # A fresh profile (start_driver) and nothing fetched beyond the page itself.
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
              "--allow-file-access-from-files", "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--no-first-run"):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return start_driver(webdriver, chromedriver, options)


def free_loopback_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_listening(command, port):
    """Starts `command`, which listens on 127.0.0.1:`port`, and waits for it."""
    import socket
    import subprocess
    import time
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"{command[0]} did not listen on 127.0.0.1:{port}")
            time.sleep(0.1)


def start_driver(webdriver, chromedriver, options):
    """Chromium and chromedriver each on a free loopback port, reached by
    address: Selenium and chromedriver would reach them by the name
    "localhost", which a minimal system without /etc/hosts does not resolve."""
    browser_port, driver_port = free_loopback_port(), free_loopback_port()
    profile = tempfile.mkdtemp(prefix="lumen_chromium_")
    browser = start_listening([options.binary_location, f"--remote-debugging-port={browser_port}",
                               f"--user-data-dir={profile}"] + options.arguments + ["about:blank"], browser_port)
    service = start_listening([chromedriver, f"--port={driver_port}"], driver_port)
    options.debugger_address = f"127.0.0.1:{browser_port}"
    driver = webdriver.Remote(command_executor=f"http://127.0.0.1:{driver_port}", options=options)
    quit_session = driver.quit

    def quit_all():
        try:
            quit_session()
        finally:
            for process in (service, browser):
                process.terminate()
                process.wait(timeout=10)
            shutil.rmtree(profile, ignore_errors=True)
    driver.quit = quit_all
    return driver
