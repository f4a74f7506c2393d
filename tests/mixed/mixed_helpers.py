"""Helpers of the mixed tests: a loaded and o2c-prepared database, the CLI's fast options,
the test's own checksum of the tables o2c writes, and the invariants of a 2x2 frontier."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path

from dbbench.cli import main
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c import setup
from dbbench.drivers.registry import open_engine
from dbbench.reports.families import read_result
from dbbench.reports.mixed.metrics import summarize_mixed
from dbbench.reports.mixed.model import MixedResult

SF = 0.01
#: seconds-long points: no think time, a short ramp-up, one-loop (1.5 s) windows
FAST = ["--think", "0", "--rampup", "0.1", "--steady", "1", "--progress", "1"]
#: a 2x2 frontier's grid (and a fixed qgen seed0, so that baselines of another run share it)
GRID = ["-u", "1,2", "-S", "1,2", "--freshness", "0.1", "--seed", "5"]


def table_digest(url: str) -> dict[str, str]:
    """SHA-256 over the rows, in key order, of the four tables o2c writes to (independent of
    the kit's own fingerprints); each row is one string built by the engine (CONCAT_WS), so
    that the test does not convert every value in Python."""
    engine = open_engine(url)
    s = engine.session()
    found = {}
    try:
        for name in ("customer", "partsupp", "orders", "lineitem"):
            table = TABLES[name]
            cols, key = ", ".join(table.column_names), ", ".join(table.primary_key)
            rows = s.query(f"SELECT CONCAT_WS('|', {cols}) FROM {name} ORDER BY {key}").rows
            found[name] = hashlib.sha256("\n".join(str(r[0]) for r in rows).encode()).hexdigest()
    finally:
        s.close()
        engine.close()
    return found


def execute(url: str, sql: str) -> None:
    engine = open_engine(url)
    s = engine.session()
    try:
        s.execute(sql)
    finally:
        s.close()
        engine.close()


def load_and_prepare(url: str, users: int) -> dict[str, str]:
    """Load SF 0.01 and prepare o2c for ``users``; the tables' digest before prepare."""
    engine = open_engine(url)
    try:
        load_database(engine, SF, jobs=1)
    finally:
        engine.close()
    before = table_digest(url)
    engine = open_engine(url)
    try:
        setup.prepare(engine, seed=1, users=users)
    finally:
        engine.close()
    return before


def check_frontier(
    out: Path,
    code: int,
    text: str,
    reports: Path,
    given: Sequence[tuple[str, int, int]] = (),
) -> MixedResult:
    """The invariants of a 2x2 frontier (:data:`GRID`) in ``out``, whose points ``given``
    came from a --baseline file: every point complete, both sides measured in each window,
    freshness recorded, interference against both baselines, the end points, the reports
    (written into ``reports``)."""
    family, result, _ = read_result(out)
    assert isinstance(result, MixedResult) and family.name == "dbbench-mixed-result"
    summary = summarize_mixed(result)
    assert code == 0, [p.reasons for p in summary.points]
    assert summary.valid
    roles = sorted((p.role, p.users, p.streams) for p in result.points)
    assert roles == [
        ("mixed", 1, 1), ("mixed", 1, 2), ("mixed", 2, 1), ("mixed", 2, 2),
        ("o2c-only", 1, 0), ("o2c-only", 2, 0), ("streams-only", 0, 1), ("streams-only", 0, 2),
    ]  # fmt: skip
    assert sorted((p.role, p.users, p.streams) for p in result.points if p.source) == sorted(given)
    for p in summary.points:
        assert p.point.status == "complete", p.point.errors
        if p.point.users:
            assert p.o2c is not None and p.o2c.steps > 0 and p.o2c.errors == 0
            assert p.freshness is not None and p.freshness.invoices > 0
            assert p.freshness.seen > 0 and math.isfinite(p.freshness.p99)
            assert 0 <= p.freshness.p50 <= p.freshness.p99 <= p.freshness.max
        if p.point.streams:
            assert p.streams is not None and p.streams.queries > 0 and p.streams.failed == 0
            assert p.streams.sets_per_hour > 0
            run = p.point.tpch
            assert run is not None and run.params  # qgen parameters per set, recorded
            # each set is a stream number s + k*S with its own seed, in Appendix-A order
            assert all(run.seeds[k] == result.config["seed0"] + int(k) for k in run.seeds)
    # every mixed point measured against both of its baselines
    assert len(summary.interference) == 4
    assert all(
        math.isfinite(i.rt_ratio) and math.isfinite(i.sets_ratio) for i in summary.interference
    )
    ends = [f for f in summary.frontier if not f.users or not f.streams]
    assert len(ends) == 2  # the o2c-only and the streams-only end points
    assert "\nFrontier\n--------\n" in text and "unofficial" in text
    # the report formats through the registry
    for fmt in ("md", "html", "json"):
        target = reports / f"r.{fmt}"
        assert main(["report", str(out), "--format", fmt, "-o", str(target)]) == 0
    assert "<svg" in (reports / "r.html").read_text()
    data = json.loads((reports / "r.json").read_text())
    assert data["valid"] is True and len(data["points"]) == 8 and "unofficial" in data["label"]
    return result


def check_and_cleanup(url: str, before: dict[str, str]) -> None:
    """``o2c check`` passes and ``o2c cleanup`` restores the tables' own checksums."""
    assert main(["o2c", "check", "-e", url]) == 0
    assert main(["o2c", "cleanup", "-e", url]) == 0
    assert table_digest(url) == before
