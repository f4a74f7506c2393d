"""A crashed o2c run leaves a consistent database: connections killed on the server mid-run,
then the driver process killed with SIGKILL; ``check`` passes, ``cleanup`` restores."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from o2c_helpers import table_digest

from dbbench.drivers.o2c import setup
from dbbench.drivers.registry import open_engine

CRASH_ENGINES = [
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
]


def _count(url: str, sql: str) -> int:
    engine = open_engine(url)
    s = engine.session()
    try:
        return int(s.query(sql).rows[0][0] or 0)
    finally:
        s.close()
        engine.close()


def _kill_connections(url: str) -> int:
    """Terminate every other connection to the test's database, on the server."""
    engine = open_engine(url)
    s = engine.session()
    try:
        if engine.name == "postgresql":
            rows = s.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).rows
            return len(rows)
        ids = s.query(
            "SELECT id FROM information_schema.processlist "
            "WHERE db = DATABASE() AND id <> CONNECTION_ID()"
        ).rows
        for (pid,) in ids:
            with contextlib.suppress(Exception):
                s.execute(f"KILL CONNECTION {int(pid)}")
        return len(ids)
    finally:
        s.close()
        engine.close()


def _prepared_duckdb(tmp_path: Path, *, seed: int, users: int) -> str:
    """A DuckDB file at SF 0.01 prepared for o2c with ``users`` users; its URL."""
    from dbbench.drivers.loader import load_database

    url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
    engine = open_engine(url)
    try:
        load_database(engine, 0.01, jobs=1)
        setup.prepare(engine, seed=seed, users=users)
    finally:
        engine.close()
    return url


def _wait_for(url: str, sql: str, at_least: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while _count(url, sql) < at_least:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.3)


@pytest.mark.parametrize("tpch_url", CRASH_ENGINES, indirect=True)
def test_killed_connections_and_sigkill_leave_a_consistent_database(
    tpch_url: str, tmp_path: Path
) -> None:
    before = table_digest(tpch_url)
    engine = open_engine(tpch_url)
    try:
        prepared = setup.prepare(engine, seed=11, users=100)
    finally:
        engine.close()
    b = prepared.key_base
    billed = f"SELECT COUNT(*) FROM orders WHERE o_orderkey >= {b} AND o_shippriority = 4"
    cmd = [
        sys.executable,
        "-m",
        "dbbench",
        "o2c",
        "run",
        "-e",
        tpch_url,
        "-u",
        "100",
        "--think",
        "0.05",
        "--rampup",
        "0.5",
        "--steady",
        "120",
        "--progress",
        "600",
        "-o",
        str(tmp_path / "run.json"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(tpch_url, billed, 10, proc)
        assert _kill_connections(tpch_url) > 0
        done = _count(tpch_url, billed)
        _wait_for(tpch_url, billed, done + 10, proc)  # the run replaced its connections
        journal = tmp_path / "run.json.steps.csv"  # one line per finished step, as it ends
        assert journal.is_file() and journal.stat().st_size > 0
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    # what was measured survives the kill: the result written first plus the step journal
    from dbbench.reports.o2c.metrics import summarize
    from dbbench.reports.o2c.model import O2CResult

    (probe,) = O2CResult.read(tmp_path / "run.json").probes
    assert probe.status == "partial" and sum(probe.steps.ok) > 20
    assert not summarize(probe, 1.0).passed
    # nothing finished was lost: every invoice the database committed is a journaled step 15,
    # but for the steps in flight at the kill (at most one per work process)
    journaled = sum(
        1 for st, ok in zip(probe.steps.step, probe.steps.ok, strict=True) if st == 15 and ok
    )
    committed = _count(tpch_url, billed)
    assert 0 <= committed - journaled <= probe.work_processes, (committed, journaled)
    engine = open_engine(tpch_url)
    try:
        stages = _count(
            tpch_url, f"SELECT COUNT(DISTINCT o_shippriority) FROM orders WHERE o_orderkey >= {b}"
        )
        assert stages >= 2  # orders were caught between steps of their document flow
        assert setup.check(engine) == []
        report = setup.cleanup(engine)
        assert report.touched_equal and report.fingerprints_equal
    finally:
        engine.close()
    assert table_digest(tpch_url) == before


@pytest.mark.postgresql
def test_server_gone_stops_the_run_and_keeps_measurements(pg_base_url: str) -> None:
    """The database disappears mid-run (dropped WITH (FORCE): every connection is cut and
    none can be opened again): the run stops, keeps every step measured, and is invalid."""
    from o2c_helpers import run_and_drop
    from private_databases import fresh_postgres

    from dbbench.reports.o2c.metrics import summarize

    with fresh_postgres(pg_base_url, "dbbench_o2c") as url:
        engine = open_engine(url)
        _, probe, seconds = run_and_drop(engine, url, pg_base_url)
        assert seconds < 60  # it stopped, it did not sit out the window
        assert probe.status == "failed"
        assert any("the server went away" in e for e in probe.errors)
        assert sum(probe.steps.ok) > 50  # what was measured before is kept
        assert not summarize(probe, 1.0).passed
        engine.close()


def test_sigterm_keeps_the_measurements(tmp_path: Path) -> None:
    """``kill`` (SIGTERM) stops a run like Ctrl-C: the result is written, marked partial and
    invalid, with every step measured so far, and the command says so in one line on stderr
    with exit 130 (issue 39: one signal path); the database stays consistent."""
    from dbbench.reports.o2c.model import O2CResult

    url = _prepared_duckdb(tmp_path, seed=1, users=20)
    out = tmp_path / "run.json"
    cmd = [sys.executable, "-m", "dbbench", "o2c", "run", "-e", url, "-u", "20",
           "--think", "0.05", "--rampup", "0.2", "--steady", "60", "--progress", "0.5",
           "-o", str(out)]  # fmt: skip
    with subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:  # progress lines: wait until the steady state is measured
            if "steady" in line and "steps/s=0.0" not in line:
                break
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 130, rest
        assert "interrupted" in rest, rest
    result = O2CResult.read(out)
    (probe,) = result.probes
    assert probe.status == "partial"
    assert any(e.startswith("interrupted") for e in probe.errors)
    assert sum(probe.steps.ok) > 20
    engine = open_engine(url)
    try:
        assert setup.check(engine) == []
    finally:
        engine.close()


def test_sigkilled_search_keeps_its_finished_probes_and_the_running_ones_steps(
    tmp_path: Path,
) -> None:
    """``o2c search`` rewrites its result before and after every probe: killed outright, it
    leaves every finished probe and the running probe's steps (from its step journal)."""
    from dbbench.drivers.o2c.search import next_probe
    from dbbench.reports.o2c.metrics import summarize
    from dbbench.reports.o2c.model import O2CResult

    url = _prepared_duckdb(tmp_path, seed=3, users=200)
    out = tmp_path / "search.json"
    cmd = [
        sys.executable, "-m", "dbbench", "o2c", "search", "-e", url, "-u", "5",
        "--think", "0.05", "--steady", "1.5", "--rt-limit", "30",
        "--progress", "600", "-o", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = tmp_path / "search.json.steps.csv"
    try:
        deadline = time.monotonic() + 120
        while True:  # two probes finished and the third one under way
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the search made no progress"
            if out.is_file() and journal.is_file() and journal.stat().st_size > 0:
                probes = O2CResult.read(out).probes
                if len(probes) >= 3 and probes[1].status == "complete":
                    break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    result = O2CResult.read(out)
    finished = [p for p in result.probes if p.status == "complete"]
    assert [p.users for p in finished[:2]] == [5, 10]  # doubling from 5
    assert all(sum(p.steps.ok) > 0 for p in finished)
    running = result.probes[-1]
    assert running.status == "partial"
    # the next count follows the search's rule from the verdicts it had (a loaded machine
    # can fail the 10-user probe, on the window's step mix say): next_probe's count, or the
    # same count again with a wider pool of work processes
    history: list[tuple[int, bool]] = []
    for p in finished:  # the last probe at a count decides it
        if history and history[-1][0] == p.users:
            history.pop()
        history.append((p.users, summarize(p, result.rt_limit).passed))
    expected = {next_probe(history, 5, 200, 1000, 0.0), finished[-1].users}
    assert running.users in expected, (running.users, history)
    assert len(running.steps.step) > 0  # its steps came back from the journal


def test_sigterm_stops_a_search_without_a_confirmation_run(tmp_path: Path) -> None:
    """Ctrl-C or kill ends a search with what it measured: it does not go on to confirm."""
    from dbbench.reports.o2c.model import O2CResult

    url = _prepared_duckdb(tmp_path, seed=3, users=100)
    out = tmp_path / "search.json"
    cmd = [
        sys.executable, "-m", "dbbench", "o2c", "search", "-e", url, "-u", "5",
        "--think", "0.05", "--steady", "1.5", "--rt-limit", "30",
        "--confirm-steady", "60", "--progress", "600", "-o", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (out.is_file() and len(O2CResult.read(out).probes) >= 2):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)  # no 60 s confirmation run after the stop
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    result = O2CResult.read(out)
    assert [p for p in result.probes if p.role == "confirmation"] == []
    assert any(p.status == "partial" for p in result.probes)
