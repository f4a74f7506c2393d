"""From a result to the numbers a report shows: per-run metrics, timing tables, chart data.

Pure: takes a :class:`~reports.tpch.model.BenchmarkResult`, returns plain dataclasses. A failed
or missing interval never silently drops out of a metric: the metric is then ``None`` and the
run's ``problems`` say why, so every renderer shows "not computed" with the reason.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from dbbench.reports.tpch import metrics
from dbbench.reports.tpch.model import Interval, Reason, RunResult
from dbbench.reports.tpch.reasons import message, reason

QUERY_COLUMNS: tuple[str, ...] = tuple(f"Q{n}" for n in range(1, 23))
COLUMNS: tuple[str, ...] = (*QUERY_COLUMNS, "RF1", "RF2")


def column_of(interval: Interval) -> str:
    """Table column of an interval: Q1..Q22, RF1 or RF2."""
    if interval.kind == "query":
        return f"Q{interval.query}"
    return interval.kind.upper()


def phase_label(interval: Interval) -> str:
    if interval.phase == "power":
        return "power test"
    if interval.kind == "query":
        return f"throughput stream {interval.stream}"
    return f"throughput refresh pair {interval.stream}"


@dataclass
class Stat:
    """Minimum, maximum and average of one column, each reported to 0.1 s."""

    minimum: float
    maximum: float
    average: float


@dataclass
class StreamRow:
    """One row of the per-stream timing table: stream 0 is the power test."""

    stream: int
    seed: int | None
    cells: dict[str, float | None]  # column -> reported seconds; None = failed or missing
    start: float | None = None
    end: float | None = None
    rf_start: float | None = None  # the refresh functions timed in this row (RF1 start)
    rf_end: float | None = None  # (RF2 end)
    exact: dict[str, float] = field(default_factory=dict)  # column -> measured seconds (ok)

    @property
    def seconds(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return self.end - self.start


@dataclass
class RunSummary:
    """Everything a report shows about one run."""

    number: int
    streams: int
    power: float | None = None
    throughput: float | None = None
    qphh: float | None = None
    ts_seconds: float | None = None
    throughput_start: float | None = None
    throughput_end: float | None = None
    problems: list[str] = field(default_factory=list)
    missing: list[Reason] = field(default_factory=list)  # intervals (or streams) not recorded
    rows: list[StreamRow] = field(default_factory=list)
    stats: dict[str, Stat] = field(default_factory=dict)
    power_times: dict[str, float] = field(default_factory=dict)  # unadjusted, reported
    #: the same intervals at full resolution (seconds as measured, not rounded up to 0.1 s):
    #: what comparisons divide, so that fast engines do not all tie at the spec's floor
    power_exact: dict[str, float] = field(default_factory=dict)
    throughput_means: dict[str, float] = field(default_factory=dict)
    power_geomean: float | None = None
    throughput_mean: float | None = None
    update_sets: list[int] = field(default_factory=list)


def _group(intervals: list[Interval]) -> dict[tuple[str, int], list[Interval]]:
    """Intervals by (phase, stream): stream 0 of the power test, streams/pairs 1..S."""
    grouped: dict[tuple[str, int], list[Interval]] = defaultdict(list)
    for iv in intervals:
        grouped[(iv.phase, iv.stream)].append(iv)
    return grouped


def _row(stream: int, seed: int | None, ivs: list[Interval]) -> StreamRow:
    cells: dict[str, float | None] = {}
    exact: dict[str, float] = {}
    for iv in ivs:
        cells[column_of(iv)] = metrics.reported_interval(iv.seconds) if iv.status == "ok" else None
        if iv.status == "ok":
            exact[column_of(iv)] = iv.seconds
    queries = [iv for iv in ivs if iv.kind == "query"]
    refresh = [iv for iv in ivs if iv.kind != "query"]
    return StreamRow(
        stream,
        seed,
        cells,
        min((iv.start for iv in queries), default=None),
        max((iv.end for iv in queries), default=None),
        min((iv.start for iv in refresh), default=None),
        max((iv.end for iv in refresh), default=None),
        exact,
    )


def _missing(row: StreamRow, columns: tuple[str, ...], where: str, run: int) -> list[Reason]:
    lost = [c for c in columns if c not in row.cells]
    if not lost:
        return []
    return [reason("interval-missing", run=run, where=where, what=", ".join(lost))]


def _power(summary: RunSummary, row: StreamRow, sf: float) -> None:
    """Power@Size from stream 0 (with RF1/RF2), or the reason it cannot be computed."""
    problems = _missing(row, COLUMNS, "the power test", summary.number)
    failed = [c for c in COLUMNS if c in row.cells and row.cells[c] is None]
    summary.problems += [message(p) for p in problems]
    summary.missing += problems
    summary.power_times = {c: v for c, v in row.cells.items() if v is not None}
    summary.power_exact = dict(row.exact)
    if problems or failed:
        if failed:
            summary.problems.append(
                f"run {summary.number}: Power@Size not computed: {', '.join(failed)} failed"
            )
        return
    times = [summary.power_times[c] for c in COLUMNS]
    summary.power = metrics.power_at_size(sf, times[:22], times[22:])
    summary.power_geomean = metrics.round_half_up(metrics.geometric_mean(times), 1)


def _throughput(summary: RunSummary, run: RunResult, rows: list[StreamRow], sf: float) -> None:
    """Throughput@Size over the measurement interval Ts, or the reason it cannot be."""
    number = summary.number
    problems: list[Reason] = []
    for row in rows:
        problems += _missing(row, QUERY_COLUMNS, f"throughput stream {row.stream}", number)
        problems += _missing(row, ("RF1", "RF2"), f"refresh pair {row.stream}", number)
    present = {r.stream for r in rows}
    for s in range(1, run.streams + 1):
        if s not in present:
            problems.append(reason("stream-missing", run=number, stream=s))
    failed = [(r.stream, c) for r in rows for c, v in r.cells.items() if v is None]
    summary.problems += [message(p) for p in problems]
    summary.missing += problems
    tput = [iv for iv in run.intervals if iv.phase == "throughput"]
    start = run.throughput_start or (min(iv.start for iv in tput) if tput else None)
    end = run.throughput_end or (max(iv.end for iv in tput) if tput else None)
    summary.throughput_start, summary.throughput_end = start, end
    if start is not None and end is not None:
        summary.ts_seconds = end - start
    query_values = [v for r in rows for c, v in r.cells.items() if c.startswith("Q") and v]
    if query_values:
        summary.throughput_mean = metrics.round_half_up(metrics.arithmetic_mean(query_values), 1)
    for c in COLUMNS:
        vals = [v for r in rows if (v := r.cells.get(c)) is not None]
        if vals:
            summary.throughput_means[c] = metrics.round_half_up(metrics.arithmetic_mean(vals), 1)
    if problems or failed or not summary.ts_seconds:
        if failed:
            cells = ", ".join(f"{c} of stream {s}" for s, c in failed)
            summary.problems.append(f"run {number}: Throughput@Size not computed: {cells} failed")
        return
    summary.throughput = metrics.throughput_at_size(sf, run.streams, summary.ts_seconds)


def _stats(rows: list[StreamRow]) -> dict[str, Stat]:
    out: dict[str, Stat] = {}
    for c in COLUMNS:
        vals = [v for r in rows if (v := r.cells.get(c)) is not None]
        if vals:
            avg = metrics.round_half_up(metrics.arithmetic_mean(vals), 1)
            out[c] = Stat(min(vals), max(vals), avg)
    return out


def summarise_run(run: RunResult, scale_factor: float) -> RunSummary:
    """Metrics and tables of one run; problems list every reason a metric is missing."""
    summary = RunSummary(number=run.number, streams=run.streams)
    grouped = _group(run.intervals)
    seed = run.seeds.get
    power_row = _row(0, seed("0"), grouped.get(("power", 0), []))
    rows = [
        _row(s, seed(str(s)), grouped.get(("throughput", s), []))
        for s in sorted({k[1] for k in grouped if k[0] == "throughput"})
    ]
    _power(summary, power_row, scale_factor)
    _throughput(summary, run, rows, scale_factor)
    summary.rows = [power_row, *rows]
    summary.stats = _stats(summary.rows)
    if summary.power is not None and summary.throughput is not None:
        summary.qphh = metrics.qphh_at_size(summary.power, summary.throughput)
    sets = [iv.update_set for iv in run.intervals if iv.kind == "rf1" and iv.update_set]
    summary.update_sets = sorted(set(run.update_sets) | {s for s in sets if s is not None})
    return summary
