"""A study stopped by ``kill`` or Ctrl-C says so in one line, exits 130 and marks the step
it stopped (issue 20 item 14: a suite died silently on SIGTERM leaving its entry "pending";
a scaling study printed no "interrupted" line)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbbench.drivers.journal import read_journal
from dbbench.errors import ExitCode
from dbbench.reports.model import JOURNAL_FILE


def _started(run_dir: Path) -> bool:
    try:
        return any(e["event"] == "query_start" for e in read_journal(run_dir / JOURNAL_FILE))
    except (OSError, ValueError):
        return False


def _stop_when_running(argv: list[str], run_dir: Path, sig: signal.Signals) -> str:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbbench", *argv],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _started(run_dir):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "dbbench: interrupted" in err, err
    return err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_suite_stopped_by_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text(
        "scale_factor = 0.01\nstreams = 1\nruns = 1\ntelemetry_interval = 0\n"
        '[[engine]]\nname = "a"\nurl = "duckdb"\n[[engine]]\nname = "b"\nurl = "duckdb"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    _stop_when_running(["suite", str(suite), "-o", str(out)], out / "a-sf0.01", sig)
    entries = json.loads((out / "suite.json").read_text(encoding="utf-8"))["entries"]
    assert [(e["status"], e["message"]) for e in entries] == [
        ("failed", "interrupted"),
        ("pending", ""),
    ]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_scaling_study_stopped_by_a_signal(sig: signal.Signals, tmp_path: Path) -> None:
    out = tmp_path / "scaling"
    argv = ["scale", "-s", "0.01", "-S", "1,2", "-o", str(out), "--telemetry-interval", "0"]
    _stop_when_running(argv, out / "streams-1", sig)
    steps = json.loads((out / "scale.json").read_text(encoding="utf-8"))["steps"]
    assert steps[0]["status"] == "failed" and steps[0]["message"] == "interrupted"
