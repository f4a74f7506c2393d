"""Latency distributions: per query (and refresh function) over every stream and run.

Uses the full-resolution ``seconds`` of each successful interval, not the spec's 0.1 s
rounding: at small scale factors every query would otherwise tie at 0.1 s. The headline
metrics stay spec-exact elsewhere; these figures are labelled as measured.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markupsafe import escape

from dbbench.reports.tpch.analysis import COLUMNS, column_of
from dbbench.reports.tpch.model import BenchmarkResult, Interval, Phase

PHASES: tuple[Phase, ...] = ("power", "throughput")


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    pos = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    frac = pos - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * frac


@dataclass(frozen=True)
class Distribution:
    """Seconds of one column's successful intervals."""

    column: str
    n: int
    minimum: float
    p25: float
    median: float
    p75: float
    p95: float
    maximum: float
    failed: int = 0

    @property
    def spread(self) -> float:
        """Relative spread: interquartile range over the median (0 for one sample)."""
        return (self.p75 - self.p25) / self.median if self.median > 0 else 0.0


def distribution(column: str, values: Iterable[float], failed: int = 0) -> Distribution | None:
    data = sorted(values)
    if not data:
        return None
    return Distribution(
        column,
        len(data),
        data[0],
        percentile(data, 25),
        percentile(data, 50),
        percentile(data, 75),
        percentile(data, 95),
        data[-1],
        failed,
    )


def samples(
    result: BenchmarkResult, phases: Sequence[str] = PHASES
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds of successful intervals per column, and failures per column."""
    ok: dict[str, list[float]] = defaultdict(list)
    failed: dict[str, int] = defaultdict(int)
    for run in result.runs:
        for iv in run.intervals:
            if iv.phase not in phases:
                continue
            if _ok(iv):
                ok[column_of(iv)].append(iv.seconds)
            else:
                failed[column_of(iv)] += 1
    return ok, failed


def _ok(iv: Interval) -> bool:
    return iv.status == "ok" and iv.seconds >= 0


def distributions(result: BenchmarkResult, phases: Sequence[str] = PHASES) -> list[Distribution]:
    """One distribution per column that has at least one successful interval, in column
    order (Q1..Q22, RF1, RF2)."""
    ok, failed = samples(result, phases)
    out = []
    for col in COLUMNS:
        d = distribution(col, ok.get(col, []), failed.get(col, 0))
        if d is not None:
            out.append(d)
    return out


# ---------------------------------------------------------------- the box plot

_W, _ROW, _LEFT, _RIGHT, _TOP = 900, 18, 60, 20, 24


def _log_axis(low: float, high: float) -> tuple[float, float, list[float]]:
    lo = math.floor(math.log10(max(low, 1e-6)))
    hi = math.ceil(math.log10(max(high, low * 1.0001, 1e-6)))
    if hi <= lo:
        hi = lo + 1
    return lo, hi, [10.0**e for e in range(lo, hi + 1)]


def _tick(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def render_boxplot(dists: Sequence[Distribution], title: str = "") -> str:
    """Horizontal box plots on a log time axis: whiskers min..max, box p25..p75, a bar at the
    median and a dot at p95. An ``<svg>`` string (empty when there is nothing to draw)."""
    data = [d for d in dists if d.maximum > 0]
    if not data:
        return ""
    lo, hi, ticks = _log_axis(
        min(d.minimum for d in data if d.minimum > 0) if any(d.minimum > 0 for d in data) else 1e-3,
        max(d.maximum for d in data),
    )
    height = _TOP + _ROW * len(data) + 30
    floor = 10.0**lo

    def x(v: float) -> float:
        v = max(v, floor)
        return _LEFT + (_W - _LEFT - _RIGHT) * (math.log10(v) - lo) / (hi - lo)

    out = [
        f'<svg class="chart boxplot" viewBox="0 0 {_W} {height}" role="img" '
        f'aria-label="{escape(title or "latency distribution")}" width="100%">'
    ]
    bottom = _TOP + _ROW * len(data)
    for t in ticks:
        out.append(
            f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{_TOP - 4}" y2="{bottom}" class="grid"/>'
            f'<text x="{x(t):.1f}" y="{bottom + 14}" text-anchor="middle" class="tick">'
            f"{_tick(t)}</text>"
        )
    for i, d in enumerate(data):
        mid = _TOP + _ROW * i + _ROW / 2
        tip = (
            f"{d.column}: n={d.n} min {d.minimum * 1000:.1f} ms, median {d.median * 1000:.1f} ms,"
            f" p95 {d.p95 * 1000:.1f} ms, max {d.maximum * 1000:.1f} ms"
        )
        p25, median = x(d.p25), f"{x(d.median):.1f}"
        out.append(
            f"<g><title>{escape(tip)}</title>"
            f'<text x="{_LEFT - 6}" y="{mid + 4:.1f}" text-anchor="end" class="cat">'
            f"{escape(d.column)}</text>"
            f'<line x1="{x(d.minimum):.1f}" x2="{x(d.maximum):.1f}" y1="{mid:.1f}" '
            f'y2="{mid:.1f}" class="whisker"/>'
            f'<rect x="{p25:.1f}" y="{mid - 5:.1f}" '
            f'width="{max(x(d.p75) - p25, 1.5):.1f}" height="10" class="box"/>'
            f'<line x1="{median}" x2="{median}" y1="{mid - 6:.1f}" '
            f'y2="{mid + 6:.1f}" class="median"/>'
            f'<circle cx="{x(d.p95):.1f}" cy="{mid:.1f}" r="2.5" class="p95"/></g>'
        )
    out.append("</svg>")
    return "".join(out)
