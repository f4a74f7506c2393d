"""``load``, ``power`` and ``throughput`` as separate commands, the cost sheet option and the
progress display, on embedded DuckDB."""

from __future__ import annotations

import io
import re
import time
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from dbbench.cli import main
from dbbench.commands import run_progress
from dbbench.drivers.sequencer import RESULT_FILE, RunProgress
from dbbench.errors import ExitCode
from dbbench.reports.tpch.compliance import messages
from dbbench.reports.tpch.model import BenchmarkResult

SF = "0.01"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cost-sheets"


def test_scripted_sequence_load_power_throughput(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
    assert main(["power", "-e", url, "-s", SF, "-o", str(tmp_path / "early")]) == 1
    assert "no database file" in capsys.readouterr().err  # refused before it is created
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "load")]) == 0
    assert main(["power", "-e", url, "-s", SF, "-o", str(tmp_path / "power"), "--seed", "7"]) == 0
    args = ["throughput", "-e", url, "-s", SF, "-o", str(tmp_path / "tp"), "--streams", "3"]
    assert main(args) == 0

    power = BenchmarkResult.read(tmp_path / "power" / RESULT_FILE)
    (run,) = power.runs
    assert Counter(i.kind for i in run.intervals) == {"query": 22, "rf1": 1, "rf2": 1}
    assert run.update_sets == [1] and run.seeds["0"] == 7
    assert [i.query for i in run.intervals if i.kind == "query"][:3] == [14, 2, 9]
    assert run.throughput_start is None
    assert "the load test was not part of this invocation" in messages(power.compliance)

    tp = BenchmarkResult.read(tmp_path / "tp" / RESULT_FILE)
    (run,) = tp.runs
    assert Counter(i.kind for i in run.intervals) == {"query": 66, "rf1": 3, "rf2": 3}
    assert run.update_sets == [2, 3, 4] and run.power_start is None
    assert run.throughput_start is not None and run.throughput_end is not None
    assert run.throughput_start == min(i.start for i in run.intervals)
    assert run.throughput_end == max(i.end for i in run.intervals)
    assert sorted(run.params) == ["1", "2", "3"]
    assert tp.streams == 3 and tp.status == "complete"


def test_cost_sheet_is_checked_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml")
    out = tmp_path / "run"
    assert main(["run", "-s", SF, "-o", str(out), "--cost-sheet", str(bad)]) == 1
    assert capsys.readouterr().err.startswith("dbbench: error: ")
    assert not out.exists()
    sheet = EXAMPLES / "cloud-vm-3y.toml"
    assert main(["run", "-s", SF, "-o", str(out), "--runs", "1", "--cost-sheet", str(sheet)]) == 0
    assert "Total system cost (3 years) | 9,948 USD" in (out / "report.md").read_text()
    (phases,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("phases: ")]
    listed, total = phases.removeprefix("phases: ").split("; ")
    named = [part.rsplit(" ", 2)[0] for part in listed.split(", ")]
    assert total.startswith("total ") and total.endswith(" s")
    assert named == [
        "load",
        "run 1 power",
        "run 1 throughput",
        "answers",  # every query's output digested and written, after the measured work
        "plans",  # each query's plan, after the measured work
        "refresh-set generation",
        "reports",
        "other",
    ], phases


def test_plain_progress_lines_when_not_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "PLAIN_INTERVAL", 0.01)
    progress = RunProgress()
    out = io.StringIO()
    with run_progress.show_progress(progress, out):
        progress.start_phase("run 1 throughput", [1, 2], 44, 2)
        progress.query_done(1, ok=True)
        progress.refresh_pair_done(ok=False)
        time.sleep(0.1)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("dbbench: run 1 throughput | queries 1/44 | refresh pairs 1/2")
    assert "failures 1" in line and "elapsed 00:00:00" in line and "phase ETA" in line


def test_terminal_progress_shows_each_stream() -> None:
    progress = RunProgress()
    progress.start_phase("run 2 throughput", [1, 2, 3], 66, 3)
    for _ in range(5):
        progress.query_done(2, ok=True)
    table = run_progress._table(progress)
    out = io.StringIO()
    Console(file=out, width=200).print(table)
    text = out.getvalue()
    assert "run 2 throughput | queries 5/66" in text
    assert "5/22" in text and text.count("0/22") == 2


def test_load_progress_counts_rows() -> None:
    progress = RunProgress()
    progress.start_phase("load", [], 0, 0)
    progress.start(75175, 2)  # the loader's sink: lineitem and orders, 75,175 rows
    progress.advance(30000, 0)
    progress.output_done("lineitem")
    progress.advance(15000, 0)
    text = run_progress.describe(progress.snapshot())
    assert text.startswith("load | rows 45,000/75,175 | elapsed")


def test_phase_breakdown_sums_refresh_sets_and_shows_the_rest() -> None:
    progress = RunProgress()
    for name in ("load", "run 1 refresh-set generation", "run 1 power"):
        progress.start_phase(name, [], 0, 0)
        time.sleep(0.02)
    progress.start_phase("run 1 refresh-set generation", [], 0, 0)
    time.sleep(0.02)
    progress.end_phase()
    durations, total = progress.phase_seconds()
    assert [name for name, _ in durations] == [
        "load",
        "run 1 refresh-set generation",
        "run 1 power",
        "run 1 refresh-set generation",
    ]
    assert all(seconds >= 0.02 for _, seconds in durations)
    assert total >= sum(seconds for _, seconds in durations)
    line = run_progress.phase_breakdown(progress)
    # the order and the summed entry; the figures depend on how busy the machine is
    assert re.match(r"phases: load [\d.]+ s, run 1 power [\d.]+ s, refresh-set generation ", line)
    assert ", other " in line and "; total " in line and line.endswith(" s")
    assert progress.snapshot().phase == "done"


def test_exit_code_of_an_invalid_run_is_3(tmp_path: Path) -> None:
    """A query failing on a live connection: recorded, the run goes on, the exit code is 3.
    The failure is real: the database file loses its NATION table before the power test."""
    url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
    assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "load")]) == 0
    with duckdb.connect(str(tmp_path / "tpch.duckdb")) as con:
        con.execute("ALTER TABLE nation RENAME TO nation_gone")
        con.execute("CREATE TABLE nation AS SELECT * FROM nation_gone")
        con.execute("DROP TABLE nation_gone")
        con.execute("ALTER TABLE nation DROP COLUMN n_name")  # queries naming it now fail
    code = main(["power", "-e", url, "-s", SF, "-o", str(tmp_path / "power")])
    assert code == ExitCode.INVALID_RUN
    result = BenchmarkResult.read(tmp_path / "power" / RESULT_FILE)
    (run,) = result.runs
    failed = sorted(i.query for i in run.intervals if i.status == "error" and i.query)
    assert failed == [2, 5, 7, 8, 9, 10, 11, 20, 21]  # every query naming n_name
    assert len(run.intervals) == 24 and result.status == "complete"
    assert any("Q9 error" in e for e in result.errors)
