"""Hand-built results for the reports tests: no engine, no real run, fixed clock."""

from __future__ import annotations

from pathlib import Path

from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.tpch.model import (
    AcidVerdict,
    BenchmarkResult,
    Compliance,
    Interval,
    LoadResult,
    RunResult,
)

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "reports" / "golden"
#: one golden result file per family version (read by tests/reports and tests/site)
FAMILY_GOLDEN = GOLDEN / "families"

# Appendix A rows 0..2 [SPEC Appendix A]: the order the fixture's streams submit queries.
ORDERS = {
    0: [14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12],
    1: [21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4],
    2: [6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21],
}
#: a passed ACID result of the same engine (clause 3): without one no run is compliant
PASSED_ACID = AcidVerdict(
    verdict="passed",
    summary=(
        "ACID: passed (tests atomicity-commit, atomicity-rollback, consistency, isolation-1, "
        "isolation-2, isolation-3, isolation-4, isolation-5, isolation-6, durability; failures "
        "system crash (process or server killed) (the process running the embedded engine "
        "killed with SIGKILL))"
    ),
    engine="duckdb",
    engine_version="1.4.1",
    scale_factor=1.0,
)
T0 = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC: fixed, so goldens do not depend on the clock


def query_seconds(query: int, stream: int) -> float:
    """A deterministic, hand-checkable time per query: 1.0 .. 3.1 s, streams slower."""
    return round(1.0 + query / 10 + stream * 0.5, 3)


def _stream(run: RunResult, phase: str, stream: int, start: float, slow: float = 0.0) -> float:
    t = start
    for position, q in enumerate(ORDERS[stream % len(ORDERS)], 1):
        secs = query_seconds(q, stream if phase == "throughput" else 0) + slow
        run.intervals.append(
            Interval("query", phase, stream, position, t, t + secs, secs, query=q, rows=q)  # type: ignore[arg-type]
        )
        t += secs
    return t


def _refresh(run: RunResult, phase: str, pair: int, kind: str, t: float, update_set: int) -> float:
    secs = 0.8 if kind == "rf1" else 0.6
    run.intervals.append(
        Interval(
            kind, phase, pair, max(pair, 1), t, t + secs, secs, rows=6000, update_set=update_set
        )  # type: ignore[arg-type]
    )
    return t + secs


def make_run(number: int, streams: int = 2, first_set: int = 1, start: float = T0) -> RunResult:
    """One run: RF1, stream 0, RF2; then S streams in parallel and S refresh pairs."""
    seed = 101000000 + number
    seeds = {str(s): seed + s for s in range(streams + 1)}
    run = RunResult(number=number, streams=streams, seeds=seeds)
    t = _refresh(run, "power", 0, "rf1", start, first_set)
    t = _stream(run, "power", 0, t)
    t = _refresh(run, "power", 0, "rf2", t, first_set)
    run.power_start, run.power_end = start, t
    tstart = t + 1.0
    ends = [_stream(run, "throughput", s, tstart) for s in range(1, streams + 1)]
    t = tstart
    for pair in range(1, streams + 1):
        t = _refresh(run, "throughput", pair, "rf1", t, first_set + pair)
        t = _refresh(run, "throughput", pair, "rf2", t, first_set + pair)
    run.throughput_start, run.throughput_end = tstart, max([*ends, t])
    run.update_sets = list(range(first_set, first_set + streams + 1))
    run.params = {
        str(s): {str(q): [f"p{q}-{s}", "1998-12-01"] for q in (1, 14)} for s in range(streams + 1)
    }
    return run


def make_result(
    scale_factor: float = 1,
    streams: int = 2,
    url: str = "duckdb:///bench/tpch.duckdb",
    acid: AcidVerdict | None = PASSED_ACID,
) -> BenchmarkResult:
    """A complete, compliant-looking two-run result at SF 1 with 2 streams (with a passed
    ACID result attached; ``acid=None``: none, so not compliant)."""
    runs = [make_run(1, streams, 1, T0 + 100), make_run(2, streams, 2 + streams, T0 + 1000)]
    return BenchmarkResult(
        scale_factor=scale_factor,
        streams=streams,
        engine=EngineInfo(
            name="duckdb", url=url, version="1.4.1", dialect="duckdb", settings={"threads": "2"}
        ),
        system=SystemInfo(
            hostname="bench-host",
            cpu_model="Example CPU 9000",
            chips=1,
            cores=2,
            threads=4,
            memory_bytes=16 * 2**30,
            os="Debian GNU/Linux 12",
            kernel="6.1.0",
            python="3.11.2",
            dbbench_version="0.1.0",
            storage=[{"device": "nvme0n1", "bytes": 512 * 10**9}],
        ),
        kit_version="0.1.0",
        created=T0 + 2000,
        status="complete",
        load=LoadResult(
            start=T0,
            end=T0 + 95.4,
            seconds=95.4,
            rows={"region": 5, "nation": 25},
            steps={"load": 80.0, "keys": 10.0, "analyze": 5.4},
        ),
        runs=runs,
        compliance=Compliance(True, []),
        acid=acid,
    )
