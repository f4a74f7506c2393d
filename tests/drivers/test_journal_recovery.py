"""What was measured after the last checkpoint is never lost (issue: reliability, item 4).

A run killed with SIGKILL mid-throughput leaves a result file one phase behind its journal;
``dbbench report`` and ``compare`` rebuild the result from the journal and say so, also when
the result file is missing altogether.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.journal import read_journal
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.reasons import message

SF = "0.01"


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run on SQLite killed with SIGKILL once its throughput test has measured a few
    queries (the result file was last written at the end of the power test); without
    SQLite's secondary indexes, so that its queries are slow enough to be caught."""
    tmp = tmp_path_factory.mktemp("killed")
    out = tmp / "run"
    url = f"sqlite:///{tmp / 'bench.sqlite'}?indexes=false"
    args = ["run", "-e", url, "-s", SF, "-o", str(out), "--runs", "1", "--streams", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
    )
    journal = out / JOURNAL_FILE
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists():
            events = read_journal(journal)
            if (
                sum(
                    1
                    for e in events
                    if e.get("phase") == "throughput" and e["event"] == "query_end"
                )
                >= 3
            ):
                break
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return out


def _measured(out: Path) -> int:
    return sum(
        1
        for e in read_journal(out / JOURNAL_FILE)
        if e["event"] in ("query_end", "rf1_end", "rf2_end")
    )


def test_report_rebuilds_what_the_result_file_missed(
    killed_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    on_disk = BenchmarkResult.read(killed_run / RESULT_FILE)
    kept = sum(len(r.intervals) for r in on_disk.runs)
    assert kept < _measured(killed_run)  # the result file is behind: the point of the test
    capsys.readouterr()
    assert main(["report", str(killed_run), "-f", "json"]) == 0
    captured = capsys.readouterr()
    assert "result rebuilt from the journal" in captured.err
    assert captured.err.count("\n") == 1
    assert json.loads(captured.out)["headline"]["scale_factor"] == float(SF)
    rebuilt = load_result(killed_run)
    assert sum(len(r.intervals) for r in rebuilt.runs) == _measured(killed_run)
    assert rebuilt.status == "partial"
    assert any("rebuilt from the journal" in r for r in map(message, rebuilt.compliance.reasons))
    assert main(["compare", str(killed_run), str(killed_run / RESULT_FILE)]) == 0
    assert capsys.readouterr().err.count("result rebuilt from the journal") == 2


def test_report_without_a_result_file(
    killed_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / JOURNAL_FILE).write_bytes((killed_run / JOURNAL_FILE).read_bytes())
    capsys.readouterr()
    assert main(["report", str(copy), "-f", "json"]) == 0
    captured = capsys.readouterr()
    assert "(no result file)" in captured.err
    assert json.loads(captured.out)["headline"]["scale_factor"] == float(SF)
    rebuilt = load_result(copy)
    assert sum(len(r.intervals) for r in rebuilt.runs) == _measured(killed_run)
    assert rebuilt.load is not None and rebuilt.load.seconds > 0
