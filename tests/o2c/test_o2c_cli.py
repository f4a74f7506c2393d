"""``dbbench o2c ...`` end to end on embedded DuckDB: bad input, prepare, run, report,
search, check and cleanup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c.setup import workload_rows
from dbbench.drivers.registry import open_engine
from dbbench.errors import ExitCode
from dbbench.reports.model import EMBEDDED
from dbbench.reports.model.hostnoise import recorded
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.model import BenchmarkResult

#: a short think time; the ramp-up stays its default, one loop (users spread over it)
FAST = ["--think", "0.05", "--progress", "0.5"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_cwd: Path) -> None:
    """A command without ``-o`` writes its result into the current directory."""


@pytest.fixture(scope="module")
def duckdb_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("o2c_cli") / "tpch.duckdb"
    engine = open_engine(f"duckdb:///{path}")
    try:
        load_database(engine, 0.01, jobs=1)
    finally:
        engine.close()
    return f"duckdb:///{path}"


def _one_line_error(capsys: pytest.CaptureFixture[str], needle: str) -> None:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert needle in err, err


def test_bad_input(
    tmp_path: Path, duckdb_url: str, capsys: pytest.CaptureFixture[str], tmp_cwd: object
) -> None:
    empty = f"duckdb:///{tmp_path / 'empty.duckdb'}"
    assert main(["o2c", "prepare", "-e", empty]) == ExitCode.USER_ERROR
    _one_line_error(capsys, "no database file")
    assert not (tmp_path / "empty.duckdb").exists()  # nothing creates an empty one
    open_engine(empty).close()  # an empty database file
    assert main(["o2c", "prepare", "-e", empty]) == ExitCode.USER_ERROR
    _one_line_error(capsys, "no TPC-H data")
    assert main(["o2c", "run", "-e", duckdb_url, "-u", "0"]) == ExitCode.USER_ERROR
    _one_line_error(capsys, "users must be a positive number, not 0")
    assert main(["o2c", "run", "-e", duckdb_url, "-u", "5", "--think", "-1"]) == 1
    _one_line_error(capsys, "think time must not be negative")
    assert main(["o2c", "prepare", "-e", duckdb_url, "--users", "-3"]) == 1
    _one_line_error(capsys, "--users must be a positive number")
    assert main(["o2c", "run", "-e", duckdb_url, "-u", "5"]) == 1
    _one_line_error(capsys, "not prepared for o2c")
    assert main(["o2c", "prepare", "-e", duckdb_url, "--users", "100000"]) == 1
    _one_line_error(capsys, "at most 400 users")
    assert main(["o2c", "prepare", "-e", duckdb_url, "--seed", "1", "--users", "40"]) == 0
    capsys.readouterr()
    assert main(["o2c", "prepare", "-e", duckdb_url, "--seed", "2"]) == 1
    _one_line_error(capsys, "already prepared for o2c with seed 1")
    assert main(["o2c", "run", "-e", duckdb_url, "-u", "41", *FAST]) == 1
    _one_line_error(capsys, "prepared for 40")
    assert not Path("runs").exists(), "a refused run wrote a result"
    assert main(["o2c", "cleanup", "-e", duckdb_url]) == 0


def test_run_report_search_check_cleanup(
    tmp_path: Path, duckdb_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["o2c", "prepare", "-e", duckdb_url, "--users", "40"]) == 0
    out = tmp_path / "run.json"
    code = main(
        ["o2c", "run", "-e", duckdb_url, "-u", "20", "--steady", "3", *FAST, "-o", str(out)]
    )
    text = capsys.readouterr().out
    result = O2CResult.read(out)
    summary = summarize(result.probes[0], result.rt_limit)
    assert code == (0 if summary.passed else ExitCode.INVALID_RUN)
    assert "O2C-SAPS (unofficial)" in text and "not comparable with SAP certifications" in text
    assert result.engine.name == "duckdb" and result.probes[0].users == 20
    assert summary.errors == 0 and summary.steps > 0
    noise = recorded(result.config)  # the probe's host noise (issue 34)
    assert noise is not None and [p.phase for p in noise.phases] == ["20 users"]
    assert noise.engine == EMBEDDED and noise.phases[0].kit is not None

    assert main(["report", str(out), "-f", "md"]) == 0
    md = capsys.readouterr().out
    assert "| VA01 |" in md and "| Dialog steps / hour |" in md
    assert "NOT an SAP-certified result" in md and "## Throughput over time" in md
    assert "## Host noise" in md and "| 20 users |" in md
    assert main(["report", str(out), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"]["users"] == 20
    assert main(["report", str(out), "-f", "html"]) == 0
    html = capsys.readouterr().out
    assert html.count("<svg") == 2 and "<script" not in html  # self-contained, offline
    assert "not comparable with SAP certifications" in html and "<th>VF01</th>" in html
    assert main(["report", str(out), "-f", "pdf"]) == 2
    capsys.readouterr()

    found = tmp_path / "search.json"
    args = ["o2c", "search", "-e", duckdb_url, "-u", "5", "--max-users", "40", "--steady", "1.5"]
    confirm = ["--confirm-steady", "2"]
    code = main(
        [*args, "--max-probes", "4", "--rt-limit", "0.5", *FAST, *confirm, "-o", str(found)]
    )
    captured = capsys.readouterr()
    search = O2CResult.read(found)
    probes = [p for p in search.probes if p.role == "probe"]
    confirmations = [p for p in search.probes if p.role == "confirmation"]
    assert search.probes == probes + confirmations  # the confirmation runs come last
    users = [p.users for p in probes]
    assert 1 <= len(users) <= 4
    verdict_lines = [ln for ln in captured.err.splitlines() if ln.startswith("probe ")]
    assert users[0] == 5 and len(verdict_lines) == len(users)  # every probe kept
    # progress lines name the probe they belong to (a log, not a terminal: plain lines)
    assert "search probe 1: 5 users [" in captured.err
    verdicts = [summarize(p, 0.5).passed for p in probes]
    assert code == (0 if any(verdicts) else ExitCode.INVALID_RUN)
    if any(verdicts):  # confirmed at the largest passing count, or one step down
        passing = sorted({p.users for p, ok in zip(probes, verdicts, strict=True) if ok})
        assert 1 <= len(confirmations) <= 2
        assert confirmations[0].users == passing[-1]
        # --confirm-steady 2, rounded up to whole loops of 15 x (0.05 s think + 0.1 s)
        loop = 15 * (0.05 + 0.1)
        window = confirmations[0].window_end - confirmations[0].window_start
        assert window == pytest.approx(loop)
        if len(confirmations) == 2:
            assert not summarize(confirmations[0], 0.5).passed
            assert confirmations[1].users == passing[-2]
            assert "stepping down" in captured.err
    else:
        assert confirmations == []
    for i in range(1, len(users)):  # doubling while passing, then between pass and fail
        if verdicts[i - 1] and users[i - 1] < 40 and all(verdicts[:i]):
            assert users[i] == min(40, users[i - 1] * 2)
    assert "Probes" in captured.out
    assert main(["report", str(found), "-f", "html"]) == 0
    assert "Dialog response time (avg; p90, p99 dashed) against users" in capsys.readouterr().out

    assert main(["compare", str(out), str(found), "-f", "md"]) == 0
    landscape = capsys.readouterr().out
    assert "| run |" in landscape and "| search |" in landscape
    assert "SAP cert 2009041 (published SAP certification, not comparable)" in landscape
    assert "75,762 SAPS" in landscape and "O2C-SAPS (unofficial)" in landscape

    assert main(["o2c", "check", "-e", duckdb_url]) == 0
    assert "every business invariant holds" in capsys.readouterr().out
    assert main(["o2c", "cleanup", "-e", duckdb_url]) == 0
    assert "restored rows equal their pre-prepare checksums" in capsys.readouterr().out
    assert main(["o2c", "check", "-e", duckdb_url]) == 1  # nothing prepared any more


def test_tpch_power_run_after_o2c(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A TPC-H power test (RF1, 22 queries, RF2) on a database with o2c orders works: the
    refresh functions' keys and o2c's never collide. Its refresh pair changes rows that are
    not o2c's, which check and cleanup then report (cleanup --force still cleans up)."""
    url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
    assert main(["load", "-e", url, "-s", "0.01", "-o", str(tmp_path / "load")]) == 0
    assert main(["o2c", "prepare", "-e", url, "--users", "10"]) == 0
    run = ["o2c", "run", "-e", url, "-u", "10", "--steady", "1", *FAST]
    assert main([*run, "-o", str(tmp_path / "run.json")]) in (0, 3)
    engine = open_engine(url)
    try:
        present = workload_rows(engine)
    finally:
        engine.close()
    assert present["orders"] > 0
    assert main(["power", "-e", url, "-s", "0.01", "-o", str(tmp_path / "power")]) == 0
    capsys.readouterr()
    # the 22 queries read o2c's orders too: said in the compliance verdict, with the count
    power = BenchmarkResult.read(tmp_path / "power" / "result.json")
    assert power.config["o2c_workload_rows"] == present
    o2c = [r for r in power.compliance.reasons if r.code == "o2c-workload-present"]
    assert len(o2c) == 1 and o2c[0].facts["orders"] == present["orders"]
    assert "o2c workload orders" in (tmp_path / "power" / "report.md").read_text()
    assert main(["o2c", "check", "-e", url]) == ExitCode.INVALID_RUN
    err = capsys.readouterr().err
    assert "rows of orders outside the workload's own rows changed" in err
    assert "orders without exactly 5 lines" not in err  # o2c's own orders are intact
    assert main(["o2c", "cleanup", "-e", url]) == 1
    assert "differ from before prepare" in capsys.readouterr().err
    assert main(["o2c", "cleanup", "-e", url, "--force"]) == 0
    assert "WARNING" in capsys.readouterr().out
    assert main(["o2c", "check", "-e", url]) == 1  # not prepared any more


def test_scale_study_by_user_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``o2c scale``: one probe per user count, the seeds' scaling table in every format."""
    url = f"duckdb:///{tmp_path / 'scale.duckdb'}"
    engine = open_engine(url)
    try:
        load_database(engine, 0.01, jobs=1)
    finally:
        engine.close()
    assert main(["o2c", "scale", "-e", url, "-u", "5,0"]) == ExitCode.USER_ERROR
    _one_line_error(capsys, "--users needs user counts of at least 1")
    assert main(["o2c", "scale", "-e", url, "-u", "five"]) == ExitCode.USER_ERROR
    _one_line_error(capsys, "--users must be a comma-separated list")
    assert main(["o2c", "prepare", "-e", url, "--users", "20"]) == 0
    out = tmp_path / "scale.json"
    args = ["o2c", "scale", "-e", url, "-u", "10,5,20", "--steady", "1.5", "-o", str(out)]
    assert main([*args, *FAST, "--rt-limit", "5"]) == 0
    text = capsys.readouterr().out
    assert "Scaling by users" in text
    result = O2CResult.read(out)
    assert result.kind == "scale"
    assert [p.users for p in result.probes] == [5, 10, 20]
    summaries = [summarize(p, result.rt_limit) for p in result.probes]
    assert all(s.steps > 0 for s in summaries)
    assert main(["report", str(out), "-f", "json", "-o", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    rows = doc["scaling"]
    assert [r["users"] for r in rows] == [5, 10, 20]
    first = summaries[0].steps_per_hour
    for row, s in zip(rows, summaries, strict=True):
        assert row["relative"] == pytest.approx(s.steps_per_hour / first)
        assert row["efficiency"] == pytest.approx(row["relative"] / (s.users / 5))
    assert main(["report", str(out), "-f", "md", "-o", str(tmp_path / "r.md")]) == 0
    md = (tmp_path / "r.md").read_text()
    assert "## Scaling by users" in md and "| 20 |" in md
    assert main(["report", str(out), "-f", "html", "-o", str(tmp_path / "r.html")]) == 0
    assert "<h2>Scaling by users</h2>" in (tmp_path / "r.html").read_text()
