"""``load``, then ``power`` and ``throughput`` on the database it loaded (issue item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.sequencer import RESULT_FILE
from dbbench.errors import ExitCode
from dbbench.reports.tpch.model import BenchmarkResult

SF = "0.01"


def test_power_and_throughput_in_the_load_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["load", "-s", SF, "-o", str(run)]) == 0
    database = (run / "tpch.duckdb").stat().st_ino
    assert main(["power", "-s", SF, "-o", str(run), "--force"]) == 0
    assert (run / "tpch.duckdb").stat().st_ino == database  # kept, not reloaded
    assert BenchmarkResult.read(run / RESULT_FILE).runs[0].update_sets == [1]
    assert main(["throughput", "-s", SF, "-o", str(run), "--force", "-S", "2"]) == 0
    assert BenchmarkResult.read(run / RESULT_FILE).runs[0].update_sets == [2, 3]


def test_power_with_the_default_engine_elsewhere_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["-o", str(tmp_path / "new")], []):
        assert main(["power", "-s", SF, *args]) == ExitCode.USER_ERROR
        err = capsys.readouterr().err
        assert err.startswith("dbbench: error: power with the default engine runs on the ")
        assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_the_readme_sequence_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = "duckdb:///tpch.duckdb"
    assert main(["load", "-e", db, "-s", SF, "-o", "runs/load"]) == 0
    assert main(["power", "-e", db, "-s", SF, "-o", "runs/power"]) == 0
    assert main(["throughput", "-e", db, "-s", SF, "-o", "runs/tp", "--streams", "4"]) == 0
    result = BenchmarkResult.read(tmp_path / "runs" / "tp" / RESULT_FILE)
    assert result.status == "complete" and result.runs[0].update_sets == [2, 3, 4, 5]
