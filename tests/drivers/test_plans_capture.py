"""Plan capture on a real DuckDB run: ``--plans analyze`` says so in the result, an EXPLAIN
that fails is recorded for its plan only (the run stays valid), and a plan file that is
missing or damaged is one line in ``report``."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from pathlib import Path

import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.journal import Journal, read_journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import plans as plans_module
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.plans import capture_plans
from dbbench.queries.order import stream_order
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.model import PLANS_FILE


def test_an_analyze_run_then_a_failing_explain_then_a_lost_plan_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    args = ["run", "-s", "0.01", "-S", "1", "--runs", "1", "--seed", "3", "-o", str(run_dir)]
    assert main([*args, "--telemetry-interval", "0", "--plans", "analyze"]) == 0
    result = load_result(run_dir)
    assert result.status == "complete" and not result.errors
    assert result.plans is not None and result.plans.mode == "analyze"
    assert result.config["plans"] == "analyze" and len(result.plans.records) == 44
    text = gzip.decompress((run_dir / PLANS_FILE).read_bytes()).decode()
    assert "EXPLAIN ANALYZE" in text or "Total Time" in text  # DuckDB's executed plan

    # the same run's plans again, with a table renamed under them: its queries' EXPLAINs
    # fail, each recorded for its plan; nothing makes the benchmark invalid
    url = f"duckdb:///{run_dir / 'tpch.duckdb'}"
    engine = open_engine(url)
    journal = Journal(tmp_path / "journal.jsonl")
    try:
        admin = engine.session()
        admin.execute("ALTER TABLE region RENAME TO region_gone")
        ctx = RunContext(engine, RunOptions(sf=0.01, streams=1), journal)
        again = capture_plans(ctx, result.runs, tmp_path, "explain")
        admin.execute("ALTER TABLE region_gone RENAME TO region")
        # Q15's view is made in a transaction rolled back (DuckDB's DDL is transactional):
        # with SUPPLIER gone its EXPLAIN fails after the view was made; the rollback leaves
        # neither the view nor an aborted transaction that would fail the next queries
        assert engine.facts.transactional_ddl
        admin.execute("ALTER TABLE supplier RENAME TO supplier_gone")
        third = capture_plans(ctx, result.runs, tmp_path, "explain")
        admin.execute("ALTER TABLE supplier_gone RENAME TO supplier")
        views = admin.query("SELECT view_name FROM duckdb_views() WHERE NOT internal").rows
        admin.close()
    finally:
        journal.close()
        engine.close()
    failed = sorted({r.query for r in again.records if r.error is not None})
    assert failed == [2, 5, 8]  # the queries that read REGION
    assert all("region" in (r.error or "").lower() for r in again.records if r.error)
    assert all(r.sha256 for r in again.records if r.query not in failed)
    assert not ctx.problems
    failed = sorted({r.query for r in third.records if r.error is not None})
    assert failed == [2, 5, 7, 8, 9, 11, 15, 16, 20, 21]  # the queries that read SUPPLIER
    assert all(r.sha256 for r in third.records if r.query not in failed)
    assert views == []

    capsys.readouterr()
    (run_dir / PLANS_FILE).unlink()
    assert main(["report", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if PLANS_FILE in line] == [
        f"note: plans: {PLANS_FILE} is missing: the plan texts are not shown"
    ]
    (run_dir / PLANS_FILE).write_bytes(gzip.compress(b'{"run": 1, "stream": 0, "query": 1, '))
    assert main(["report", str(run_dir), "-f", "md"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "is damaged" in line]
    assert len(lines) == 1 and lines[0].startswith(f"- plans: {PLANS_FILE} is damaged (line 1")


Key = tuple[int, int, int]  # run, stream, query
SERVER = pytest.param("postgresql", marks=pytest.mark.postgresql)


@pytest.mark.parametrize("engine_name", ["duckdb", SERVER])
def test_a_server_explains_on_parallel_sessions_in_stream_order(
    engine_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """A plain EXPLAIN capture on a server spreads the queries over several sessions, and
    on DuckDB (it plans without the GIL) over one session per core; the file and the
    records come out in stream order, with the same plans as one session captures."""
    with contextlib.ExitStack() as stack:
        if engine_name == "duckdb":
            url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
        else:
            url = stack.enter_context(fresh_postgres(request.getfixturevalue("pg_base_url")))
        run_dir = tmp_path / "run"
        args = ["run", "-e", url, "-s", "0.01", "-S", "3", "--runs", "1", "--seed", "5"]
        assert main([*args, "-o", str(run_dir), "--telemetry-interval", "0", "--plans", "off"]) == 0
        result = load_result(run_dir)
        engine = stack.enter_context(contextlib.closing(open_engine(url)))
        if engine_name == "postgresql":  # the statistics the refresh stream left, settled
            admin = engine.session()
            admin.execute("ANALYZE")
            admin.close()
        captured: dict[int, tuple[list[Key], list[tuple[int, int, str | None]]]] = {}
        for most in (1, plans_module.MAX_SESSIONS):
            monkeypatch.setattr(plans_module, "MAX_SESSIONS", most)
            out = tmp_path / f"sessions-{most}"
            out.mkdir()
            journal = Journal(out / "journal.jsonl")
            try:
                ctx = RunContext(engine, RunOptions(sf=0.01, streams=3), journal)
                plans = capture_plans(ctx, result.runs, out, "explain")
            finally:
                journal.close()
            end = [e for e in read_journal(out / "journal.jsonl") if e["event"] == "plans_end"]
            cores = most if engine_name == "postgresql" else min(most, os.cpu_count() or 1)
            assert end[0]["sessions"] == cores
            keys = [(r.stream, r.query, r.shape) for r in plans.records]
            lines = gzip.decompress((out / PLANS_FILE).read_bytes()).decode().splitlines()
            order = [(e["run"], e["stream"], e["query"]) for e in map(json.loads, lines)]
            captured[most] = (order, keys)
    one, many = captured[1], captured[plans_module.MAX_SESSIONS]
    assert [k[:2] for k in one[1]] == [(s, q) for s in range(4) for q in stream_order(s)]
    assert all(shape for _, _, shape in one[1])
    assert many == one  # the same plans in the same order, in the file and the records
    assert one[0] == [(1, s, q) for s, q, _ in one[1]]
