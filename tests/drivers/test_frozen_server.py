"""A server that stops answering (SIGSTOP: frozen, not gone) must not hold an interrupted
run: the first SIGTERM (a CI timeout) or Ctrl-C ends it within 30 s, exit 130, with what
was measured kept (issue 20 item 14). A private PostgreSQL, never the shared one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbbench.drivers.journal import read_journal
from dbbench.errors import ExitCode
from dbbench.reports.model import JOURNAL_FILE

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from _private_servers import PrivateServer, private_postgres  # noqa: E402

pytestmark = pytest.mark.postgresql


@pytest.fixture()
def server() -> Iterator[PrivateServer]:
    try:
        with private_postgres() as pg:
            yield pg
    except (FileNotFoundError, IndexError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no PostgreSQL server binaries to start a private one: {exc}")


def _events(out: Path) -> list[str]:
    try:
        return [e["event"] for e in read_journal(out / JOURNAL_FILE)]
    except (OSError, ValueError):
        return []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_first_signal_ends_a_run_on_a_frozen_server(
    sig: signal.Signals, server: PrivateServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    run = subprocess.Popen(
        [sys.executable, "-m", "dbbench", "run", "-e", server.url, "-s", "0.01", "-o", str(out),
         "--runs", "1", "-S", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
    )  # fmt: skip
    assert server.proc is not None
    try:
        deadline = time.monotonic() + 180
        while "query_start" not in _events(out):  # the power test is running
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the power test never started"
            time.sleep(0.05)
        os.killpg(server.proc.pid, signal.SIGSTOP)  # frozen: connections open, no answer
        time.sleep(1.0)
        began = time.monotonic()
        run.send_signal(sig)
        try:
            _, err = run.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            run.kill()
            pytest.fail("the run did not end within 40 s of the first signal")
        took = time.monotonic() - began
    finally:
        os.killpg(server.proc.pid, signal.SIGCONT)
        if run.poll() is None:
            run.kill()
    assert took < 30, f"ended only after {took:.1f} s"
    assert run.returncode == ExitCode.INTERRUPTED, err
    assert err.count("\n") <= 3, err  # one line says why (and where the result is)
    assert "interrupted" in err, err
    assert "load_end" in _events(out)  # what was measured is kept


def test_a_server_killed_during_copy_is_one_line(server: PrivateServer, tmp_path: Path) -> None:
    """psycopg logs "error ignored terminating Copy" for each table being copied (7 to 12
    lines of driver noise): only dbbench's own lines reach stderr."""
    out = tmp_path / "load"
    run = subprocess.Popen(
        [sys.executable, "-m", "dbbench", "load", "-e", server.url, "-s", "0.3", "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "load_start" not in _events(out):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(1.5)  # the tables are being copied
        server.kill()
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == ExitCode.INVALID_RUN, err
    lines = err.splitlines()
    assert all(line.startswith("dbbench: ") for line in lines), err
    assert sum("connection to the engine was lost" in line for line in lines) == 1, err
