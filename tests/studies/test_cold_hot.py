"""``dbbench suite --cold --repetitions N``: cold passes after a reopen (DuckDB's file) or a
restart (a private PostgreSQL server, by the command its URL's ``restart`` option names),
"warm only" where the kit cannot restart the engine (a PostgreSQL server without one) or
the restart fails; hot passes apart, both in the suite's comparison and never averaged
together."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from private_databases import fresh_postgres
from studies_helpers import dbbench

from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import DatabaseBusy, open_engines, relock
from dbbench.drivers.registry import open_engine
from dbbench.reports.loading import load_result

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from _private_servers import private_postgres


@pytest.mark.postgresql
def test_a_cold_and_hot_suite_on_duckdb_and_postgresql_reports_both(
    pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_postgres(pg_base_url, "dbbench_coldhot") as pg_url:
        suite = tmp_path / "suite.toml"
        suite.write_text(
            "scale_factor = 0.01\nstreams = 1\nruns = 1\nseed = 5\ntelemetry_interval = 0\n"
            'baseline = "duck"\n\n[[engine]]\nname = "duck"\nurl = "duckdb"\n\n'
            f'[[engine]]\nname = "pg"\nurl = "{pg_url}"\n',
            encoding="utf-8",
        )
        out = tmp_path / "out"
        code = dbbench("suite", str(suite), "-o", str(out), "--cold", "--repetitions", "2")
        assert code == 0, capsys.readouterr().err
    duck, pg = load_result(out / "duck-sf0.01"), load_result(out / "pg-sf0.01")
    # the TPC-H run itself is as the spec says: one power and one throughput test
    assert [r.number for r in duck.runs] == [1] and duck.status == "complete"
    assert duck.passes is not None and pg.passes is not None
    assert duck.passes.cold == "cold" and pg.passes.cold == "warm only"
    assert "cannot restart or reopen" in pg.passes.note
    kinds = [(p.kind, p.number, p.reopened) for p in duck.passes.passes]
    assert kinds == [("cold", 1, True), ("cold", 2, True), ("hot", 1, False), ("hot", 2, False)]
    # recorded either way (dropped only where DBBENCH_DROP_CACHES=1 allows it)
    assert all(p.page_cache for p in duck.passes.passes if p.kind == "cold")
    assert [(p.kind, p.number) for p in pg.passes.passes] == [("hot", 1), ("hot", 2)]
    for p in (*duck.passes.passes, *pg.passes.passes):
        assert sorted(p.seconds) == sorted(f"Q{q}" for q in range(1, 23)) and not p.errors

    doc = json.loads((out / "comparison.json").read_text())["comparisons"]
    assert doc[0]["plans"] == []  # plans of different engines are never compared
    table = doc[0]["passes"]
    entries = {e["label"]: e for e in table["entries"]}
    assert entries["duck"]["cold"] == "cold" and entries["duck"]["cold_passes"] == 2
    assert entries["pg"]["cold"] == "warm only" and entries["pg"]["cold_passes"] == 0
    q1 = next(line for line in table["lines"] if line["column"] == "Q1")
    cold = sorted(p.seconds["Q1"] for p in duck.passes.passes if p.kind == "cold")
    hot = sorted(p.seconds["Q1"] for p in duck.passes.passes if p.kind == "hot")
    # each median over its own kind only: never a mean of cold and hot together
    assert q1["cold"][0] == pytest.approx(sum(cold) / 2) and q1["hot"][0] == pytest.approx(
        sum(hot) / 2
    )
    assert q1["cold"][1] is None and q1["hot"][1] is not None
    md = (out / "comparison.md").read_text()
    assert "| Query | duck cold ms | hot ms | pg cold ms | hot ms |" in md
    assert "pg: 0 (no cold: warm only) and 2 hot passes" in md
    html = (out / "comparison.html").read_text()
    assert "<h3>Cold and hot passes</h3>" in html


def _as_postgres(args: list[str]) -> list[str]:
    """PostgreSQL's tools refuse root: as its own user when the tests run as root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@dataclass
class Restartable:
    url: str  # the server's URL, without the restart option
    restart_url: str  # with it
    log: Path  # the restarted server's log


@pytest.fixture()
def restartable() -> Iterator[Restartable]:
    """A private PostgreSQL server and the command that restarts it (``pg_ctl restart``,
    with the options it was started with); the restarted server is stopped afterwards."""
    try:
        server_cm = private_postgres()
        server = server_cm.__enter__()
    except (FileNotFoundError, IndexError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no PostgreSQL server binaries to start a private one: {exc}")
    pg_ctl = str(Path(server.command[0]).with_name("pg_ctl"))
    data = Path(server.command[server.command.index("-D") + 1])
    log = data.parent / "restarts.log"
    restart = _as_postgres([pg_ctl, "-D", str(data), "-w", "-m", "fast", "-l", str(log)])
    try:
        command = quote(shlex.join([*restart, "restart"]), safe="")
        yield Restartable(server.url, f"{server.url}?restart={command}", log)
    finally:
        stop = _as_postgres([pg_ctl, "-D", str(data), "-m", "immediate", "stop"])
        subprocess.run(stop, capture_output=True, check=False)
        server_cm.__exit__(None, None, None)


def _started(url: str) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()
    assert row is not None
    return float(row[0])


@pytest.mark.postgresql
def test_postgresql_restarted_by_its_restart_command_has_cold_passes(
    restartable: Restartable,
    pg_base_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the URL's ``restart`` command the server is restarted before each cold pass
    (shared buffers gone, so the pass is cold); a restart command that fails leaves that
    entry's passes warm only, with the reason, and the suite goes on."""
    before = _started(restartable.url)
    with fresh_postgres(pg_base_url, "dbbench_coldfail") as failing:
        suite = tmp_path / "suite.toml"
        suite.write_text(
            "scale_factor = 0.01\nstreams = 1\nruns = 1\nseed = 5\ntelemetry_interval = 0\n"
            'baseline = "duck"\n\n[[engine]]\nname = "duck"\nurl = "duckdb"\n\n'
            f'[[engine]]\nname = "pg"\nurl = "{restartable.restart_url}"\n\n'
            f'[[engine]]\nname = "pgfail"\nurl = "{failing}?restart=false"\n',
            encoding="utf-8",
        )
        out = tmp_path / "out"
        code = dbbench("suite", str(suite), "-o", str(out), "--cold", "--repetitions", "2")
        assert code == 0, capsys.readouterr().err
    pg, fail = load_result(out / "pg-sf0.01"), load_result(out / "pgfail-sf0.01")
    assert pg.passes is not None and fail.passes is not None
    assert pg.passes.cold == "cold" and "restarted or reopened" in pg.passes.note
    kinds = [(p.kind, p.number, p.reopened) for p in pg.passes.passes]
    assert kinds == [("cold", 1, True), ("cold", 2, True), ("hot", 1, False), ("hot", 2, False)]
    for p in pg.passes.passes:
        assert sorted(p.seconds) == sorted(f"Q{q}" for q in range(1, 23)) and not p.errors
    # the server really went down and up twice: a later start time, two starts in its log
    assert _started(restartable.url) > before
    assert restartable.log.read_text().count("ready to accept connections") == 2

    assert fail.passes.cold == "warm only" and fail.status == "complete"
    assert "restart command exited 1" in fail.passes.note
    assert [(p.kind, p.number) for p in fail.passes.passes] == [("hot", 1), ("hot", 2)]

    table = json.loads((out / "comparison.json").read_text())["comparisons"][0]["passes"]
    entries = {e["label"]: e for e in table["entries"]}
    assert entries["pg"]["cold"] == "cold" and entries["pg"]["cold_passes"] == 2
    assert entries["pgfail"]["cold"] == "warm only" and entries["pgfail"]["cold_passes"] == 0
    md = (out / "comparison.md").read_text()
    assert "| Query | duck cold ms | hot ms | pg cold ms | hot ms | pgfail cold ms | hot ms |" in md


@pytest.mark.postgresql
def test_a_restart_ends_the_benchmark_lock_and_relock_takes_it_back(
    restartable: Restartable,
) -> None:
    """The restart ends the admin session that held the benchmark lock, and the engine does
    not take it back itself (only the lifecycle takes locks): :func:`relock`, which the cold
    passes call after each reopen, does; while another session holds it, relock is refused
    in one line naming the holder."""
    [engine] = open_engines([restartable.restart_url])  # locked by the lifecycle
    try:
        _refused(restartable.url)
        before = _started(restartable.url)
        assert engine.reopen() is True
        assert _started(restartable.url) > before
        other = open_engine(restartable.url)  # after the restart, which ended every session
        try:
            other.lock_benchmark()  # the restart released it: a second benchmark could start
            with pytest.raises(DatabaseBusy, match=r"PostgreSQL backend \d+ holds its benchmark"):
                relock(engine)
        finally:
            other.close()
        relock(engine)
        _refused(restartable.url)
    finally:
        engine.close()


def _refused(url: str) -> None:
    """A second benchmark's lock on ``url`` is refused in one line."""
    other = open_engine(url)
    try:
        with pytest.raises(DriversError, match="holds its benchmark lock"):
            other.lock_benchmark()
    finally:
        other.close()


@pytest.mark.postgresql
def test_relock_leaves_an_engine_opened_without_the_lock_unlocked(
    restartable: Restartable,
) -> None:
    [engine] = open_engines([restartable.url], lock=False)
    other = open_engine(restartable.url)
    try:
        relock(engine)
        other.lock_benchmark()  # free: relock took nothing the lifecycle had not taken
    finally:
        other.close()
        engine.close()
