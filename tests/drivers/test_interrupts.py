"""Ctrl-C and SIGTERM during the load test, sent for real to a ``dbbench`` subprocess.

Ctrl-C on a terminal signals the whole process group (the generator's worker processes
too), so the signal goes to the group of a subprocess started in a session of its own. The
load is the longest phase and where users press Ctrl-C: the loading threads must be stopped
before their connections are closed, the exit code is 130 with a clean message, a second
Ctrl-C exits at once (one line), and nothing hangs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from private_databases import fresh_mariadb

from dbbench.drivers.journal import read_journal
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.errors import ExitCode
from dbbench.reports.tpch.model import BenchmarkResult

LOAD_SF = "0.3"  # long enough a load (several seconds) to be caught mid-lineitem
DEADLINE = 60  # seconds for dbbench to exit after the signal


def spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"}
    return subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a shell job
    )


def wait_for_rows(journal: Path, proc: subprocess.Popen[str], seconds: float) -> None:
    """Wait until the load has started, then ``seconds`` more (mid-load)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dbbench ended before the load: {proc.communicate()}")
        if journal.exists() and any(e["event"] == "load_start" for e in read_journal(journal)):
            time.sleep(seconds)
            assert proc.poll() is None, "the load ended before the signal: raise LOAD_SF"
            return
        time.sleep(0.01)
    raise AssertionError("the load never started")


def finish(proc: subprocess.Popen[str]) -> str:
    """dbbench's stderr once it has exited, and checked: no process of it left behind."""
    try:
        _, err = proc.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"dbbench did not exit within {DEADLINE} s of the signal") from None
    deadline = time.monotonic() + 10
    while True:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return err
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError("processes of dbbench outlived it (generator workers?)")
        time.sleep(0.05)


def _clean_interrupt(err: str, code: int, out: Path) -> None:
    assert code == ExitCode.INTERRUPTED, err
    assert "Traceback" not in err and "FATAL" not in err and "internal error" not in err, err
    assert "interrupted" in err
    result = BenchmarkResult.read(out / RESULT_FILE)
    assert result.status == "failed" and result.load is None
    assert any("interrupted (Ctrl-C)" in e for e in result.errors)
    assert read_journal(out / JOURNAL_FILE)[-1]["event"] == "benchmark_end"


@pytest.mark.parametrize(
    ("signum", "delay"),
    [(signal.SIGINT, 1.0), (signal.SIGTERM, 2.0), (signal.SIGINT, 0.2)],
    ids=["SIGINT", "SIGTERM", "SIGINT-early"],
)
def test_signal_during_a_duckdb_load(signum: int, delay: float, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = spawn("load", "-s", LOAD_SF, "-o", str(out))
    wait_for_rows(out / JOURNAL_FILE, proc, delay)
    os.killpg(proc.pid, signum)
    _clean_interrupt(finish(proc), proc.returncode, out)


def test_double_ctrl_c_exits_at_once_with_one_line(tmp_path: Path) -> None:
    """The second Ctrl-C lands while the first one's clean stop is under way (it takes a
    second or two: the loaders finish their batch); tried again in the rare case the
    clean stop was already over."""
    for attempt in range(3):
        out = tmp_path / f"run{attempt}"
        proc = spawn("load", "-s", LOAD_SF, "-o", str(out))
        wait_for_rows(out / JOURNAL_FILE, proc, 2.0)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.15)  # the first signal handled (the main thread wakes every 0.1 s)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=5)  # at once: no waiting for the loaders
        finally:
            err = finish(proc)
        assert proc.returncode == ExitCode.INTERRUPTED, err
        if "partial result" not in err:
            break
    assert err.splitlines() == [
        "dbbench: interrupted again; stopped at once (the journal keeps what was measured)"
    ], err
    assert read_journal(out / JOURNAL_FILE)[0]["event"] == "benchmark_start"


@pytest.mark.mariadb
@pytest.mark.parametrize("delay", [0.1, 0.3, 0.6, 1.5])
def test_ctrl_c_during_a_mariadb_load(delay: float, mariadb_base_url: str, tmp_path: Path) -> None:
    """Early (schema, first batches) to late: no SQLAlchemy "Exception during reset"
    traceback from a connection interrupted mid-statement."""
    with fresh_mariadb(mariadb_base_url, "dbbench_intr") as url:
        out = tmp_path / "run"
        proc = spawn("load", "-e", url, "-s", LOAD_SF, "-o", str(out))
        wait_for_rows(out / JOURNAL_FILE, proc, delay)
        os.killpg(proc.pid, signal.SIGINT)
        _clean_interrupt(finish(proc), proc.returncode, out)
