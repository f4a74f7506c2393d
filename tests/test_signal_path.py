"""The one signal path: from the kit's first line to its last, SIGTERM is Ctrl-C, and an
interrupted command ends with its one line on stderr and exit 130.

Each command gets SIGTERM at the earliest moment the kit can take it: the instant the
process's signal mask shows SIGTERM caught (``SigCgt`` in ``/proc/PID/status``), while the
kit's modules are still loading. Before the path, such a signal ended the command silently
with the shell's 143 (``power --force`` after it had removed the previous run's files), and
a KeyboardInterrupt no command caught left through typer as a silent exit 130 (held by
``tests/mixed/test_mixed_duckdb.py::test_sigterm_keeps_both_journals``, whose run is stopped
mid-point).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbbench.errors import ExitCode
from dbbench.interrupts import INTERRUPTED_LINE

#: commands as a user types them (none of them gets far enough to need a server)
COMMANDS = [
    ["run", "-s", "0.01"],
    ["power", "-s", "0.01", "--force"],
    ["load", "-s", "0.01"],
    ["gen", "-s", "0.01"],
    ["mixed", "run", "-e", "duckdb", "-u", "2"],
    ["o2c", "run", "-e", "duckdb", "-u", "2"],
    ["suite", "suite.toml"],
    ["site", "results"],
    ["engines"],
]


def _catches_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _spawn(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args, *(["-o", "out"] if args[0] != "engines" else [])],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_sigterm_in_the_first_instant_is_one_line_and_exit_130(
    args: list[str], tmp_path: Path
) -> None:
    proc = _spawn(args, tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not _catches_sigterm(proc.pid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "SIGTERM never caught"
            time.sleep(0.001)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == ExitCode.INTERRUPTED, (proc.returncode, err)
    assert err.endswith(INTERRUPTED_LINE), err
    assert "Traceback" not in err and err.count("\n") <= 2, err
