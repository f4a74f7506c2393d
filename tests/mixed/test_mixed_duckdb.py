"""``dbbench mixed`` on embedded DuckDB, one database for the file: a run and its verdict, a
2x2 frontier taking two of its baselines from that run's result file, compare through the
registry, a failed query that makes the run invalid, SIGTERM mid-run keeping both journals,
cleanup restoring the tables after all of them, refusals in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mixed_helpers import (
    FAST,
    GRID,
    check_and_cleanup,
    check_frontier,
    execute,
    load_and_prepare,
)

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports.families import read_result
from dbbench.reports.mixed.metrics import summarize_mixed
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE
from dbbench.reports.model.hostnoise import recorded


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    url = f"duckdb:///{tmp_path_factory.mktemp('mixed_run') / 'tpch.duckdb'}"
    yield url, load_and_prepare(url, 4)


@pytest.fixture(scope="module")
def first_run(
    duck: tuple[str, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, int]:
    """A short mixed run of 2 users and 1 stream with its two baselines: (run dir, exit)."""
    out = tmp_path_factory.mktemp("mixed_first") / "run"
    code = main(
        ["mixed", "run", "-e", duck[0], "-u", "2", "-S", "1", "--seed", "5", *FAST, "-o", str(out)]
    )
    return out, code


def _read(path: Path) -> MixedResult:
    _family, result, _note = read_result(path)
    assert isinstance(result, MixedResult)
    return result


def test_run_and_its_verdict(first_run: tuple[Path, int]) -> None:
    out, code = first_run
    first = _read(out)
    summary = summarize_mixed(first)
    assert summary.valid, [p.reasons for p in summary.points]
    assert code == (ExitCode.OK if summary.passed else ExitCode.INVALID_RUN)
    assert [p.role for p in first.points] == ["o2c-only", "streams-only", "mixed"]
    mixed = summary.point("mixed", 2, 1)
    assert mixed is not None and mixed.o2c is not None and mixed.streams is not None
    assert mixed.o2c.steps > 0 and mixed.streams.queries > 0
    # the same result fields as alone: the o2c side is an o2c probe, the streams side the
    # throughput test's intervals
    assert mixed.point.o2c is not None and mixed.point.o2c.users == 2
    assert mixed.point.tpch is not None
    assert {i.phase for i in mixed.point.tpch.intervals} == {"throughput"}
    assert len(summary.interference) == 1
    # every point's host noise, by the lifecycle's one monitor (issue 34)
    noise = recorded(first.config)
    assert noise is not None and len(noise.phases) == 3
    assert all(p.phase.startswith("point ") and p.cpu_busy is not None for p in noise.phases)


@pytest.fixture(scope="module")
def frontier(
    duck: tuple[str, dict[str, str]],
    first_run: tuple[Path, int],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, int]:
    """A 2x2 frontier taking the run's o2c-only and streams-only points from its result
    file: (run dir, exit). Two-loop windows: the streams share the driver process with
    the users, so that one loop can hold no posted invoice on a busy host."""
    out = tmp_path_factory.mktemp("mixed_frontier") / "frontier"
    baseline = str(first_run[0] / RESULT_FILE)
    code = main(["mixed", "frontier", "-e", duck[0], *GRID, *FAST, "--steady", "2",
                 "--baseline", baseline, "-o", str(out)])  # fmt: skip
    return out, code


def test_frontier_with_the_runs_baselines_and_compare(
    first_run: tuple[Path, int],
    frontier: tuple[Path, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run's o2c-only (2 users) and streams-only (1 stream) points stand for the
    frontier's: the same measurements, not new ones; the other six points are measured."""
    out, code = frontier
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    given = [("o2c-only", 2, 0), ("streams-only", 0, 1)]
    result = check_frontier(out, code, capsys.readouterr().out, tmp_path, given)
    first = _read(first_run[0])
    for role, users, streams in given:
        (old,) = [p for p in first.points if (p.role, p.users, p.streams) == (role, users, streams)]
        (new,) = [
            p for p in result.points if (p.role, p.users, p.streams) == (role, users, streams)
        ]
        assert new.source == RESULT_FILE and (new.o2c, new.tpch) == (old.o2c, old.tpch)
    assert result.config["baselines_given"] == [RESULT_FILE]
    assert main(["compare", str(first_run[0]), str(out), "--format", "md"]) == 0
    md = capsys.readouterr().out
    # a row for the run's mixed point and one for each of the frontier's four
    assert "## Mixed" in md and "unofficial" in md and md.count("| duckdb |") == 1 + 4


def test_failed_query_makes_the_run_invalid(
    duck: tuple[str, dict[str, str]],
    frontier: tuple[Path, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Q2, Q5 and Q8 fail (their table is renamed away), o2c's steps do not: the failed
    queries are recorded and make the run invalid; the o2c side in the mix, in the same
    broken database, is untouched. The baselines come from the frontier (measured
    intact), so only the mixed point is measured."""
    url = duck[0]
    execute(url, "ALTER TABLE region RENAME TO region_gone")
    try:
        out = tmp_path / "broken"
        code = main(["mixed", "run", "-e", url, "-u", "1", "-S", "1", *FAST,
                     "--baseline", str(frontier[0] / RESULT_FILE), "-o", str(out)])  # fmt: skip
    finally:
        execute(url, "ALTER TABLE region_gone RENAME TO region")
    assert code == ExitCode.INVALID_RUN
    summary = summarize_mixed(_read(out))
    assert not summary.valid
    assert sorted((p.point.role, p.point.source or "") for p in summary.points) == [
        ("mixed", ""), ("o2c-only", RESULT_FILE), ("streams-only", RESULT_FILE),
    ]  # fmt: skip
    mixed = summary.point("mixed", 1, 1)
    assert mixed is not None and mixed.point.tpch is not None and not mixed.valid
    failed = [i for i in mixed.point.tpch.intervals if i.status == "error"]
    assert failed and {i.query for i in failed} <= {2, 5, 8}  # recorded, never dropped
    assert any("queries or refresh functions failed" in r for r in mixed.reasons)
    assert any("Q" in e and "error" in e for e in mixed.point.errors)
    assert mixed.o2c is not None and mixed.o2c.steps > 0 and mixed.o2c.errors == 0
    capsys.readouterr()
    assert main(["o2c", "check", "-e", url]) == 0


def test_sigterm_keeps_both_journals(
    duck: tuple[str, dict[str, str]], first_run: tuple[Path, int], tmp_path: Path
) -> None:
    url = duck[0]
    out = tmp_path / "stopped"
    cmd = [
        sys.executable, "-m", "dbbench.cli", "mixed", "run", "-e", url, "-u", "2", "-S", "1",
        "--think", "0.02", "--rampup", "0.1", "--steady", "60", "--progress", "1",
        "--seed", "5", "--baseline", str(first_run[0] / RESULT_FILE), "-o", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    steps, journal = out / "o2c-steps-1.csv", out / JOURNAL_FILE
    deadline = time.monotonic() + 90
    try:
        while not (
            steps.is_file()
            and steps.read_text().count("\n") >= 20
            and journal.is_file()
            and '"query_end"' in journal.read_text()
        ):
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == ExitCode.INTERRUPTED, err.decode()
    # the one line of an interrupted command, last (typer used to end it in silence)
    assert err.decode().splitlines()[-1].startswith("dbbench: interrupted"), err.decode()
    assert steps.is_file() and journal.is_file()  # both journals kept
    result = _read(out)
    point = result.points[-1]
    assert point.role == "mixed" and point.status == "partial"
    assert any("interrupted" in e for e in point.errors)
    assert point.o2c is not None and point.o2c.steps.step  # the o2c side's steps
    assert point.tpch is not None and point.tpch.intervals  # the streams' intervals
    ended = [json.loads(line) for line in journal.read_text().splitlines()]
    assert sum(e["event"] == "query_end" for e in ended) >= len(
        [i for i in point.tpch.intervals if i.kind == "query"]
    )
    assert main(["o2c", "check", "-e", url]) == 0


def test_cleanup_after_the_runs(duck: tuple[str, dict[str, str]]) -> None:
    """After every run above (one stopped by SIGTERM), cleanup restores the tables."""
    check_and_cleanup(*duck)


def test_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An engine without transactions; an analytics node the run does not have. Nothing
    is written."""
    out = tmp_path / "never"
    assert main(["mixed", "run", "-e", "polars://", "-u", "1", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "needs transactions" in err, err
    duck = f"duckdb:///{tmp_path / 'none.duckdb'}"
    args = ["mixed", "frontier", "-e", duck, "--analytics-node", "2", "-o", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--analytics-node" in err, err
    assert not out.exists()
    assert os.listdir(tmp_path) == []


def test_several_driver_processes_are_refused_in_one_line(
    duck: tuple[str, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DuckDB is embedded in the driver: no second process can share its database; an
    agent on another host cannot feed the freshness probe. Nothing is written."""
    out = tmp_path / "never"
    for extra in (["--driver-processes", "2"], ["--driver-agent", "o2c://127.0.0.2:7400"]):
        assert main(["mixed", "run", "-e", duck[0], "-u", "2", *extra, "-o", str(out)]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        assert ("embedded in the driver" if "2" in extra else "--driver-agent") in err, err
    assert not out.exists()
