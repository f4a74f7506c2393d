"""SIGTERM (or Ctrl-C) stops an o2c study promptly: what it measured stays in its result
file, one line says it was interrupted, and it exits as every interrupted command does
(130), long before the 25-second backstop of ``drivers.signals`` would end it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from test_o2c_crash import _prepared_duckdb

from dbbench.drivers.signals import EXIT_INTERRUPTED, STOP_SECONDS
from dbbench.reports.o2c.model import O2CResult

#: Seconds from the signal to the exit at most (generous: the machine is slow and shared)
BOUND = 15.0


def _stopped_by_sigterm(cmd: list[str], ready: Callable[[], bool]) -> tuple[int, float, str]:
    """Start ``cmd`` and send it SIGTERM once ``ready()``; its exit code, the seconds from
    the signal to its exit and its standard error."""
    with subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            deadline = time.monotonic() + 120
            while not ready():
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "the study made no progress"
                time.sleep(0.05)
            signalled = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=STOP_SECONDS + 30)
            return proc.returncode, time.monotonic() - signalled, err
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _probes(path: Path) -> int:
    """The probes in the result file at ``path`` (0: none written yet)."""
    return len(O2CResult.read(path).probes) if path.is_file() else 0


def _interrupted_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "interrupted" in line]


def test_sigterm_stops_a_search_at_once_keeping_its_probes(tmp_path: Path) -> None:
    url = _prepared_duckdb(tmp_path, seed=3, users=200)
    out = tmp_path / "search.json"
    cmd = [
        sys.executable, "-m", "dbbench", "o2c", "search", "-e", url, "-u", "5",
        "--think", "0.05", "--steady", "1.5", "--rt-limit", "30", "--confirm-steady", "60",
        "--progress", "600", "-o", str(out),
    ]  # fmt: skip
    journal = out.with_name(out.name + ".steps.csv")

    def second_probe_under_way() -> bool:
        return journal.is_file() and journal.stat().st_size > 0 and _probes(out) >= 2

    code, seconds, err = _stopped_by_sigterm(cmd, second_probe_under_way)
    assert code == EXIT_INTERRUPTED, err
    assert seconds < BOUND, (seconds, err)
    lines = _interrupted_lines(err)
    assert len(lines) == 1 and lines[0] == err.splitlines()[-1], err
    assert "search interrupted" in lines[0] and str(out) in lines[0]
    assert "did not answer" not in err
    result = O2CResult.read(out)  # the stopped probe's steps from the file or its journal
    finished, stopped = result.probes[:-1], result.probes[-1]
    assert finished and all(p.status == "complete" for p in finished)
    assert stopped.status == "partial" and len(stopped.steps.step) > 0
    assert [p for p in result.probes if p.role == "confirmation"] == []


def test_sigterm_stops_a_scaling_study_without_its_next_points(tmp_path: Path) -> None:
    url = _prepared_duckdb(tmp_path, seed=1, users=20)
    out = tmp_path / "scale.json"
    cmd = [
        sys.executable, "-m", "dbbench", "o2c", "scale", "-e", url, "-u", "5,10,20",
        "--think", "0.05", "--steady", "20", "--progress", "600", "-o", str(out),
    ]  # fmt: skip
    code, seconds, err = _stopped_by_sigterm(cmd, lambda: _probes(out) >= 1)  # point 2 runs
    assert code == EXIT_INTERRUPTED, err
    assert seconds < BOUND, (seconds, err)
    lines = _interrupted_lines(err)
    assert len(lines) == 1 and lines[0] == err.splitlines()[-1], err
    assert "did not answer" not in err
    users = [p.users for p in O2CResult.read(out).probes]
    assert users in ([5], [5, 10]), users  # the point under way at most, none after it


def test_sigterm_stops_a_run_with_one_line_on_stderr_and_exit_130(tmp_path: Path) -> None:
    """Issue 39: an interrupted ``o2c run`` exited 3 with its "interrupted" text on stdout."""
    url = _prepared_duckdb(tmp_path, seed=3, users=200)
    out = tmp_path / "run.json"
    cmd = [
        sys.executable, "-m", "dbbench", "o2c", "run", "-e", url, "-u", "5",
        "--think", "0.05", "--rampup", "0", "--steady", "120", "--rt-limit", "30",
        "--progress", "600", "-o", str(out),
    ]  # fmt: skip
    journal = out.with_name(out.name + ".steps.csv")

    def steps_under_way() -> bool:
        return journal.is_file() and journal.stat().st_size > 200

    code, seconds, err = _stopped_by_sigterm(cmd, steps_under_way)
    assert code == EXIT_INTERRUPTED, err
    assert seconds < BOUND, (seconds, err)
    lines = _interrupted_lines(err)
    assert len(lines) == 1 and lines[0] == err.splitlines()[-1], err
    assert "run interrupted" in lines[0] and str(out) in lines[0]
