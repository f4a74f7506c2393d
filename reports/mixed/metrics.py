"""The mixed result's figures, from its raw measurements (pure; the drivers compute none).

Each side is summarised as it is alone: the o2c side by :func:`reports.o2c.metrics.summarize`
(the same window, limits and verdict as ``o2c run``), the streams side by its query
intervals that ended inside the window. Query-set throughput is the queries completed in the
window / 22 per hour (a set's queries differ in length, so a window holding few sets counts
the finished queries, not whole sets); the TPC-H-like figure is ``sets/h x 22 x SF`` (the
throughput test's arithmetic, S x 22 x 3600 / Ts x SF, over the window). Both are
unofficial: not TPC-H, not SAP SD, not CH-benCHmark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dbbench.reports.mixed.model import MixedPoint, MixedResult
from dbbench.reports.o2c.metrics import Limits, ProbeSummary, percentile, summarize
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.model import RunResult

QUERIES_PER_SET = 22
#: The label every report and comparison carries.
UNOFFICIAL = (
    "unofficial: SD-like users and TPC-H-derived query streams on one database; not SAP SD, "
    "not TPC-H, not CH-benCHmark: no figure is comparable with their published results"
)


@dataclass
class StreamsSummary:
    streams: int
    window_seconds: float
    queries: int  # completed (ok) inside the window
    failed: int  # error or timeout, anywhere in the point
    sets_per_hour: float
    queries_per_hour: float
    tpch_like: float  # sets/h x 22 x SF (QthH-like, unofficial)
    per_query: dict[int, float] = field(default_factory=dict)  # mean seconds in the window
    geomean: float = math.nan  # of the queries' times in the window


@dataclass
class FreshnessSummary:
    interval: float
    invoices: int  # acknowledged in the window
    seen: int
    unseen: int
    p50: float
    p99: float
    max: float
    reads: int
    stale_reads: int
    read_p50: float
    errors: int


@dataclass
class PointSummary:
    point: MixedPoint
    o2c: ProbeSummary | None
    streams: StreamsSummary | None
    freshness: FreshnessSummary | None
    valid: bool  # complete, no failed step or query, both sides measured something
    passed: bool  # valid and the o2c side within its response-time limits
    reasons: list[str]

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.point.role, self.point.users, self.point.streams)


@dataclass
class Interference:
    """A mixed point against its baselines (NaN: that baseline is missing)."""

    users: int
    streams: int
    rt_mixed: float
    rt_alone: float
    steps_mixed: float  # dialog steps/h
    steps_alone: float
    sets_mixed: float  # query sets/h
    sets_alone: float
    fresh_p99_mixed: float = math.nan
    fresh_p99_alone: float = math.nan

    @property
    def rt_ratio(self) -> float:
        return _ratio(self.rt_mixed, self.rt_alone)

    @property
    def steps_ratio(self) -> float:
        return _ratio(self.steps_mixed, self.steps_alone)

    @property
    def sets_ratio(self) -> float:
        return _ratio(self.sets_mixed, self.sets_alone)


@dataclass
class FrontierPoint:
    """A point of the HTAP frontier: OLTP and analytical throughput together."""

    label: str
    users: int
    streams: int
    steps_per_hour: float
    sets_per_hour: float
    passed: bool


@dataclass
class MixedSummary:
    result: MixedResult
    points: list[PointSummary]
    interference: list[Interference]
    frontier: list[FrontierPoint]  # the best passing users count per stream count, ends
    valid: bool  # every point valid
    passed: bool  # valid and every mixed point within the RT limits

    def point(self, role: str, users: int, streams: int) -> PointSummary | None:
        found = [p for p in self.points if p.key == (role, users, streams)]
        return found[-1] if found else None


def _streams(n: int) -> str:
    return f"{n} stream{'s' if n != 1 else ''}"


def _ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


def limits_of(result: MixedResult) -> Limits:
    c = result.config
    tx = c.get("rt_limit_transaction") or {}
    p90, p99 = c.get("rt_p90"), c.get("rt_p99")
    return Limits(
        result.rt_limit,
        float(p90) if isinstance(p90, int | float) and p90 > 0 else None,
        float(p99) if isinstance(p99, int | float) and p99 > 0 else None,
        {str(k): float(v) for k, v in tx.items()} if isinstance(tx, dict) else {},
    )


def window_bounds(point: MixedPoint) -> tuple[float, float]:
    """The measured window in Unix seconds (the o2c probe's, as really measured)."""
    if point.o2c is not None:
        from dbbench.reports.o2c.metrics import measured_end

        return point.start + point.window_start, point.start + measured_end(point.o2c)
    return point.start + point.window_start, point.start + point.window_end


def streams_summary(point: MixedPoint, sf: float) -> StreamsSummary | None:
    run: RunResult | None = point.tpch
    if run is None:
        return None
    w0, w1 = window_bounds(point)
    window = max(w1 - w0, 1e-9)
    times: dict[int, list[float]] = {}
    failed = 0
    n = 0
    for i in run.intervals:
        if i.kind != "query":
            if i.status in ("error", "timeout"):
                failed += 1
            continue
        if i.status in ("error", "timeout"):
            failed += 1
            continue
        if i.status == "ok" and w0 <= i.end <= w1 and i.query is not None:
            n += 1
            times.setdefault(i.query, []).append(i.seconds)
    sets = n / QUERIES_PER_SET * 3600.0 / window
    every = [t for v in times.values() for t in v if t > 0]
    geo = math.exp(sum(math.log(t) for t in every) / len(every)) if every else math.nan
    return StreamsSummary(
        streams=point.streams,
        window_seconds=window,
        queries=n,
        failed=failed,
        sets_per_hour=sets,
        queries_per_hour=n * 3600.0 / window,
        tpch_like=sets * QUERIES_PER_SET * sf,
        per_query={q: sum(v) / len(v) for q, v in sorted(times.items())},
        geomean=geo,
    )


def freshness_summary(point: MixedPoint) -> FreshnessSummary | None:
    f = point.freshness
    if f is None:
        return None
    w0, w1 = point.window_start, point.window_end
    if point.o2c is not None:
        from dbbench.reports.o2c.metrics import measured_end

        w1 = measured_end(point.o2c)
    lags: list[float] = []
    invoices = unseen = 0
    for acked, seen in zip(f.acked, f.seen, strict=True):
        if not w0 <= acked <= w1:
            continue
        invoices += 1
        if seen is None:
            unseen += 1
        else:
            lags.append(max(0.0, seen - acked))
    lags.sort()
    reads = sorted(f.read_seconds)
    return FreshnessSummary(
        interval=f.interval,
        invoices=invoices,
        seen=len(lags),
        unseen=unseen,
        p50=percentile(lags, 50),
        p99=percentile(lags, 99),
        max=lags[-1] if lags else math.nan,
        reads=f.reads,
        stale_reads=f.stale_reads,
        read_p50=percentile(reads, 50),
        errors=len(f.errors),
    )


def summarize_point(point: MixedPoint, limits: Limits, sf: float) -> PointSummary:
    o2c = summarize(point.o2c, limits) if point.o2c is not None else None
    streams = streams_summary(point, sf)
    fresh = freshness_summary(point)
    reasons: list[str] = []
    if point.status != "complete":
        reasons.append(f"the point is {point.status}")
    if o2c is not None:
        if o2c.errors:
            reasons.append(f"{o2c.errors} dialog steps failed")
        if not o2c.steps:
            reasons.append("no dialog step completed in the window")
    if streams is not None:
        if streams.failed:
            reasons.append(f"{streams.failed} queries or refresh functions failed")
        if not streams.queries:
            reasons.append("no query completed in the window")
    if fresh is not None and fresh.errors:
        reasons.append(f"{fresh.errors} freshness reads failed")
    valid = not reasons
    passed = valid and (o2c is None or o2c.passed)
    if valid and o2c is not None and not o2c.passed:
        reasons += o2c.reasons
    return PointSummary(point, o2c, streams, fresh, valid, passed, reasons)


def summarize_mixed(result: MixedResult) -> MixedSummary:
    limits = limits_of(result)
    points = [summarize_point(p, limits, result.scale_factor) for p in result.points]
    s = MixedSummary(result, points, [], [], all(p.valid for p in points), False)
    for p in points:
        if p.point.role != "mixed":
            continue
        alone = s.point("o2c-only", p.point.users, 0)
        solo = s.point("streams-only", 0, p.point.streams)
        s.interference.append(
            Interference(
                users=p.point.users,
                streams=p.point.streams,
                rt_mixed=p.o2c.avg_rt if p.o2c else math.nan,
                rt_alone=alone.o2c.avg_rt if alone and alone.o2c else math.nan,
                steps_mixed=p.o2c.steps_per_hour if p.o2c else math.nan,
                steps_alone=alone.o2c.steps_per_hour if alone and alone.o2c else math.nan,
                sets_mixed=p.streams.sets_per_hour if p.streams else math.nan,
                sets_alone=solo.streams.sets_per_hour if solo and solo.streams else math.nan,
                fresh_p99_mixed=p.freshness.p99 if p.freshness else math.nan,
                fresh_p99_alone=alone.freshness.p99 if alone and alone.freshness else math.nan,
            )
        )
    s.frontier = frontier(points)
    mixed = [p for p in points if p.point.role == "mixed"]
    s.passed = s.valid and bool(mixed) and all(p.passed for p in mixed)
    return s


def frontier(points: list[PointSummary]) -> list[FrontierPoint]:
    """The HTAP frontier: the o2c-only end (the most users within the RT limit, no
    analytics), per stream count the mixed point with the most users within the limit,
    and the streams-only end (the most streams' query-set throughput, no users); ordered
    by OLTP throughput, descending."""
    found: list[FrontierPoint] = []
    alone = [p for p in points if p.point.role == "o2c-only" and p.passed and p.o2c]
    if alone:
        best = max(alone, key=lambda p: p.point.users)
        assert best.o2c is not None
        found.append(
            FrontierPoint("o2c only", best.point.users, 0, best.o2c.steps_per_hour, 0.0, True)
        )
    for s in sorted({p.point.streams for p in points if p.point.role == "mixed"}):
        ok = [
            p
            for p in points
            if p.point.role == "mixed" and p.point.streams == s and p.passed and p.o2c
        ]
        if ok:
            best = max(ok, key=lambda p: p.point.users)
            assert best.o2c is not None and best.streams is not None
            found.append(
                FrontierPoint(
                    f"{best.point.users} users + {_streams(s)}",
                    best.point.users,
                    s,
                    best.o2c.steps_per_hour,
                    best.streams.sets_per_hour,
                    True,
                )
            )
    solo = [p for p in points if p.point.role == "streams-only" and p.valid and p.streams]
    if solo:
        best = max(solo, key=lambda p: p.streams.sets_per_hour if p.streams else 0.0)
        assert best.streams is not None
        found.append(
            FrontierPoint(
                f"{_streams(best.point.streams)} only",
                0,
                best.point.streams,
                0.0,
                best.streams.sets_per_hour,
                True,
            )
        )
    return sorted(found, key=lambda f: -f.steps_per_hour)


def baseline_points(result: Any, source: str) -> list[MixedPoint]:
    """The baselines an earlier result holds: an o2c result's probes (o2c-only points) or a
    mixed result's o2c-only and streams-only points; marked with ``source``."""
    found: list[MixedPoint] = []
    if isinstance(result, O2CResult):
        found += [MixedPoint.o2c_only(probe, source) for probe in result.probes]
    elif isinstance(result, MixedResult):
        for p in result.points:
            if p.role != "mixed":
                p.source = p.source or source
                found.append(p)
    return found
