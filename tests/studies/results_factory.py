"""Hand-built results for the studies tests: chosen seconds per query, no engine."""

from __future__ import annotations

from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.tpch.model import BenchmarkResult, Interval, RunResult

T0 = 1_767_225_600.0


def result_with(
    times: dict[int, list[float]],
    *,
    sf: float = 0.01,
    kit: str = "0.1.0",
    failed: dict[int, int] | None = None,
) -> BenchmarkResult:
    """One run whose query ``q`` has the intervals ``times[q]`` (seconds), plus ``failed[q]``
    failed intervals, spread over as many throughput streams as needed."""
    run = RunResult(number=1, streams=1, seeds={"0": 1})
    t = T0
    for q, values in times.items():
        for i, secs in enumerate(values):
            phase = "power" if i == 0 else "throughput"
            run.intervals.append(
                Interval("query", phase, i, q, t, t + secs, secs, query=q)  # type: ignore[arg-type]
            )
            t += secs
    for q, count in (failed or {}).items():
        for i in range(count):
            run.intervals.append(
                Interval("query", "throughput", 99 + i, q, t, t, 0.0, status="error", query=q)
            )
    return BenchmarkResult(
        scale_factor=sf,
        streams=1,
        engine=EngineInfo("duckdb", "duckdb:///x"),
        system=SystemInfo(),
        kit_version=kit,
        runs=[run],
    )
