"""Cold and hot passes in reports: per query, the cold and the hot medians of each result,
side by side and never averaged together (:class:`reports.tpch.model.Passes`)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from dbbench.reports.tpch.model import BenchmarkResult

COLUMNS = [f"Q{q}" for q in range(1, 23)]


@dataclass
class PassEntry:
    """One result's passes: what its cold passes were, and how many of each kind."""

    label: str
    cold: str  # "cold", "warm only", "off"
    note: str
    cold_passes: int
    hot_passes: int
    failed: int  # queries that failed in some pass


@dataclass
class PassLine:
    column: str
    cold: list[float | None]  # per entry: the median of its cold passes (seconds)
    hot: list[float | None]  # per entry: the median of its hot passes


@dataclass
class PassTable:
    entries: list[PassEntry] = field(default_factory=list)
    lines: list[PassLine] = field(default_factory=list)


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def pass_table(results: list[tuple[str, BenchmarkResult | None]]) -> PassTable | None:
    """The passes of ``results`` (label, result); None when none of them has any."""
    kept = [(label, r) for label, r in results if r is not None and r.passes is not None]
    if not kept:
        return None
    table = PassTable()
    times: list[dict[str, dict[str, list[float]]]] = []
    for label, result in kept:
        assert result.passes is not None
        passes = result.passes.passes
        by_kind: dict[str, dict[str, list[float]]] = {"cold": {}, "hot": {}}
        for p in passes:
            for col, secs in p.seconds.items():
                by_kind[p.kind].setdefault(col, []).append(secs)
        times.append(by_kind)
        table.entries.append(
            PassEntry(
                label, result.passes.cold, result.passes.note,
                sum(p.kind == "cold" for p in passes), sum(p.kind == "hot" for p in passes),
                sum(len(p.errors) for p in passes),
            )
        )  # fmt: skip
    for col in COLUMNS:
        cold = [_median(t["cold"].get(col, [])) for t in times]
        hot = [_median(t["hot"].get(col, [])) for t in times]
        if any(v is not None for v in (*cold, *hot)):
            table.lines.append(PassLine(col, cold, hot))
    return table
