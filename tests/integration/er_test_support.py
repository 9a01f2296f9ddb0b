"""What the Python integration tests share: running a command with a
deadline (its own process group, so a hung one is killed whole), and
checks that fail the script with a message."""
import subprocess
import sys

DEADLINE = 120  # seconds for any one command; the ctest TIMEOUT bounds the whole


def run(argv, **kw):
    """Runs argv; exits the test, naming the command, when it fails."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE, start_new_session=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)
