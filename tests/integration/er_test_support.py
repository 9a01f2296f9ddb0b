"""What the Python integration tests share: running a command with a
deadline (its own process group, so a hung one is killed whole), an
er_print session at its prompt, and checks that fail the script with a
message."""
import os
import select
import subprocess
import sys
import time

DEADLINE = 120  # seconds for any one command; the ctest TIMEOUT bounds the whole
SENTINEL = "exp_list"  # its table ends each answer: the last line names the founder's directory


class PromptSession:
    """er_print at its prompt over pipes (it answers each line as it is run)."""

    def __init__(self, er_print, experiment):
        self.name = os.path.basename(experiment)
        self.process = subprocess.Popen([er_print, experiment], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)

    def ask(self, command):
        """What `command` printed on stdout and stderr."""
        self.process.stdin.write(f"{command}\n{SENTINEL}\n".encode())
        self.process.stdin.flush()
        out, err = b"", b""
        deadline = time.time() + 120
        while time.time() < deadline:
            ready, _, _ = select.select([self.process.stdout, self.process.stderr], [], [], 1)
            for stream in ready:
                chunk = os.read(stream.fileno(), 1 << 16)
                check(chunk != b"", f"er_print ended during '{command}'")
                if stream is self.process.stdout:
                    out += chunk
                else:
                    err += chunk
            text = out.decode(errors="replace")
            table = text.rfind("\nID ") + 1 if "\nID " in text else (0 if text.startswith("ID ") else -1)
            if table >= 0 and text.endswith("\n") and self.name in text[table:].splitlines()[-1]:
                return text[:table], err.decode(errors="replace")
        check(False, f"er_print answered '{command}' within two minutes: {out[-400:]!r} {err[-400:]!r}")

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def run(argv, **kw):
    """Runs argv; exits the test, naming the command, when it fails."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE, start_new_session=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def collect_experiment(bin_dir, work, name, collect_args):
    """Records NAME in WORK with collect COLLECT_ARGS (@WORK@ in them is WORK); returns its path."""
    args = [a.replace("@WORK@", work) for a in collect_args]
    run([os.path.join(bin_dir, "collect"), "-d", work, "-o", name, *args], cwd=work)
    return os.path.join(work, name)


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)
