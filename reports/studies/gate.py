"""The regression gate: a candidate result against a baseline, query by query.

Uses the full-resolution latency distributions (:mod:`reports.tpch.latency`) of both results over
every run and stream. A query regressed when all of these hold:

* its median slowed by more than the threshold **and** more than the observed noise (the
  larger relative interquartile range of the two distributions);
* the two distributions do not overlap in the middle (candidate p25 above baseline p75);
* it slowed by more than ``min_delta`` seconds (sub-millisecond differences are the timer's).

Where both sides have two or more results (repetitions: whole benchmarks, the independent
samples), the interval decides instead of the interquartile band: each result's median of a
query is one sample, and the query regressed when the 95 % Welch t interval of the ratio of
the sides' geometric means lies above 1 (and its ratio beyond the threshold and
``min_delta``); an interval that spans 1 is "unchanged". Where that interval is wider than
the threshold, the gate says about how many repetitions per side would narrow it under it.

A query that failed in the candidate but not in the baseline, or that the candidate lacks,
is a regression too. The refresh functions are left out unless asked for: they change the
database, so their times depend on its state (how many update sets it has absorbed), and a
re-run of the same build does not reproduce them. Results that cannot mean the same thing
(another scale factor, query version or kit version) are refused unless forced.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal

from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.analysis import COLUMNS, QUERY_COLUMNS
from dbbench.reports.tpch.fair import t95
from dbbench.reports.tpch.latency import Distribution, distributions
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.plans import (
    PlanTexts,
    PlanVerdict,
    first_difference,
    first_records,
    verdict,
)

Verdict = Literal["regressed", "improved", "unchanged", "failed", "missing", "new"]
BAD: frozenset[str] = frozenset({"regressed", "failed", "missing"})
DEFAULT_MIN_DELTA = 0.001  # seconds


@dataclass
class Change:
    column: str
    base: Distribution | None
    cand: Distribution | None
    ratio: float | None  # candidate median / baseline median
    noise: float  # the relative noise band that applied
    verdict: Verdict
    plan: PlanVerdict | None = None  # queries: whether the two results planned it alike
    plan_diff: list[str] = field(default_factory=list)  # the first differing plan lines
    #: where the noise, not the threshold, set the band: about how many samples per side
    #: would bring the noise under the threshold (the band shrinks as 1/sqrt(n))
    needed: int | None = None
    #: with repetitions on both sides: the 95 % interval of the ratio over them, and how many
    low: float | None = None
    high: float | None = None
    repetitions: int | None = None  # the fewer of the two sides'

    @property
    def percent(self) -> float | None:
        return None if self.ratio is None else (self.ratio - 1.0) * 100.0


@dataclass
class GateResult:
    threshold: float  # percent
    changes: list[Change]
    geomean_ratio: float | None  # over the queries both results have
    warnings: list[str] = field(default_factory=list)
    #: the repetitions (results) on each side; with two or more on both the interval decides
    repetitions: tuple[int, int] = (1, 1)

    @property
    def by_interval(self) -> bool:
        return min(self.repetitions) >= 2

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict in BAD]

    @property
    def passed(self) -> bool:
        return not self.regressions


def pooled(results: Sequence[BenchmarkResult]) -> BenchmarkResult:
    """Several results of one side (repetitions of a build) as one: every run of each, so
    the distributions hold all their intervals. They must agree on SF, queries and kit."""
    if not results:
        raise ReportsError("the gate needs at least one result on each side")
    first = results[0]
    for other in results[1:]:
        refuse, _ = comparability(first, other)
        if refuse:
            raise ReportsError("the repetitions of one side differ: " + "; ".join(refuse))
    if len(results) == 1:
        return first
    return dataclasses.replace(first, runs=[run for r in results for run in r.runs])


#: What two results must share to be compared (else refused) and should share (else a
#: warning): its name, where a result holds it, its format, what a difference means.
_Fact = tuple[str, Callable[[BenchmarkResult], Any], str, str]
_MUST_SHARE: tuple[_Fact, ...] = (
    (
        "engines",
        attrgetter("engine.name"),
        "",
        ": a gate judges builds of one engine (dbbench compare compares engines)",
    ),
    ("scale factors", attrgetter("scale_factor"), "g", ""),
    ("query versions", attrgetter("query_version"), "", ""),
    (
        "dbbench versions",
        attrgetter("kit_version"),
        "",
        ": the measurement itself may have changed",
    ),
)
_SHOULD_SHARE: tuple[_Fact, ...] = (
    (
        "throughput streams",
        attrgetter("streams"),
        "",
        ": throughput-test latencies are not like for like",
    ),
)


def comparability(base: BenchmarkResult, cand: BenchmarkResult) -> tuple[list[str], list[str]]:
    """(reasons to refuse, warnings) for comparing ``cand`` against ``base``."""
    refuse = _differences(_MUST_SHARE, base, cand)
    warn = _differences(_SHOULD_SHARE, base, cand)
    return refuse, warn


def _differences(
    facts: tuple[_Fact, ...], base: BenchmarkResult, cand: BenchmarkResult
) -> list[str]:
    out = []
    for what, get, spec, meaning in facts:
        b, c = get(base), get(cand)
        if b != c:
            out.append(f"{what} differ (baseline {b:{spec}}, candidate {c:{spec}}){meaning}")
    return out


def _judge(
    base: Distribution | None, cand: Distribution | None, limit: float, min_delta: float
) -> Change:
    if cand is None:
        assert base is not None
        return Change(base.column, base, None, None, 0.0, "missing")
    if base is None:
        return Change(cand.column, None, cand, None, 0.0, "new")
    if cand.failed > base.failed:
        return Change(cand.column, base, cand, None, 0.0, "failed")
    ratio = cand.median / base.median if base.median > 0 else math.inf
    noise = max(base.spread, cand.spread)
    band = max(limit, noise)
    delta = cand.median - base.median
    verdict: Verdict = "unchanged"
    needed = None
    if limit > 0 and noise > limit:
        n = min(base.n, cand.n)
        needed = max(n + 1, math.ceil(n * (noise / limit) ** 2))
    if ratio > 1.0 + band and cand.p25 > base.p75 and delta > min_delta:
        verdict = "regressed"
    elif ratio < 1.0 / (1.0 + band) and cand.p75 < base.p25 and -delta > min_delta:
        verdict = "improved"
    return Change(cand.column, base, cand, ratio, noise, verdict, needed=needed)


def gate(
    base: BenchmarkResult,
    cand: BenchmarkResult,
    threshold: float = 10.0,
    *,
    min_delta: float = DEFAULT_MIN_DELTA,
    force: bool = False,
    refresh: bool = False,
    texts: tuple[PlanTexts, PlanTexts] | None = None,
    repetitions: tuple[Sequence[BenchmarkResult], Sequence[BenchmarkResult]] | None = None,
) -> GateResult:
    """Judge every query (and refresh function) of ``cand`` against ``base``; each query
    also says whether its plan changed (by the plans' shapes), with the first differing
    lines where ``texts`` (of the baseline and the candidate) hold both plans.
    ``repetitions``: the results ``base`` and ``cand`` pool (:func:`pooled`); with two or
    more on each side a query's verdict comes from the interval over them."""
    if threshold < 0 or not math.isfinite(threshold):
        raise ReportsError(f"the threshold must be a percentage >= 0, not {threshold}")
    refuse, warnings = comparability(base, cand)
    if refuse and not force:
        raise ReportsError(
            "the candidate cannot be compared with the baseline: "
            + "; ".join(refuse)
            + " (--force compares anyway)"
        )
    warnings = [f"NOT COMPARABLE: {r}" for r in refuse] + warnings
    by_base = {d.column: d for d in distributions(base)}
    by_cand = {d.column: d for d in distributions(cand)}
    cand_all_failed = _all_failed(cand, by_cand)
    changes = []
    for col in COLUMNS if refresh else QUERY_COLUMNS:
        b, c = by_base.get(col), by_cand.get(col)
        if c is None and col in cand_all_failed:
            changes.append(Change(col, b, None, None, 0.0, "failed"))
        elif b is not None or c is not None:
            changes.append(_judge(b, c, threshold / 100.0, min_delta))
    reps = repetitions or ([base], [cand])
    if min(len(reps[0]), len(reps[1])) >= 2:
        for change in changes:
            _by_interval(change, reps, threshold / 100.0, min_delta)
    _plans(base, cand, changes, texts or (PlanTexts(), PlanTexts()))
    lacking = [side for side, r in (("baseline", base), ("candidate", cand)) if r.plans is None]
    if lacking:  # said once: no query's verdict can say whether its plan changed
        warnings.append(
            f"timings compared without plans (the {' and the '.join(lacking)} captured none)"
        )
    ratios = [ch.ratio for ch in changes if ch.ratio is not None and 0 < ch.ratio < math.inf]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    return GateResult(threshold, changes, geo, warnings, (len(reps[0]), len(reps[1])))


def _medians(results: Sequence[BenchmarkResult], column: str) -> list[float]:
    """The median of ``column`` in each result that measured it (one sample per result)."""
    out = []
    for result in results:
        d = next((d for d in distributions(result) if d.column == column), None)
        if d is not None and d.median > 0:
            out.append(d.median)
    return out


def welch(base: Sequence[float], cand: Sequence[float]) -> tuple[float, float, float]:
    """(ratio, low, high): the candidate's geometric mean over the baseline's with the 95 %
    Welch t interval of the difference of mean logs (two or more samples a side)."""
    lb, lc = [math.log(v) for v in base], [math.log(v) for v in cand]
    mb, mc = statistics.fmean(lb), statistics.fmean(lc)
    vb, vc = statistics.variance(lb) / len(lb), statistics.variance(lc) / len(lc)
    se = math.sqrt(vb + vc)
    if se == 0:
        return math.exp(mc - mb), math.exp(mc - mb), math.exp(mc - mb)
    df = (vb + vc) ** 2 / (vb**2 / (len(lb) - 1) + vc**2 / (len(lc) - 1))
    half = t95(max(1, math.floor(df))) * se
    return math.exp(mc - mb), math.exp(mc - mb - half), math.exp(mc - mb + half)


def _by_interval(
    change: Change,
    reps: tuple[Sequence[BenchmarkResult], Sequence[BenchmarkResult]],
    limit: float,
    min_delta: float,
) -> None:
    """Decide ``change`` on the interval over the repetitions (its failures stay)."""
    if change.verdict not in ("regressed", "improved", "unchanged"):
        return
    base, cand = _medians(reps[0], change.column), _medians(reps[1], change.column)
    if len(base) < 2 or len(cand) < 2:
        return
    ratio, low, high = welch(base, cand)
    n = min(len(base), len(cand))
    change.ratio, change.low, change.high, change.repetitions = ratio, low, high, n
    change.noise = max(high / ratio - 1.0, 1.0 - low / ratio)  # the interval's half-width
    delta = statistics.median(cand) - statistics.median(base)
    change.verdict = "unchanged"
    if low > 1.0 and ratio > 1.0 + limit and delta > min_delta:
        change.verdict = "regressed"
    elif high < 1.0 and ratio < 1.0 / (1.0 + limit) and -delta > min_delta:
        change.verdict = "improved"
    change.needed = None
    half = math.log(high / low) / 2
    if limit > 0 and half > math.log(1.0 + limit):  # too wide to resolve a threshold's change
        change.needed = max(n + 1, math.ceil(n * (half / math.log(1.0 + limit)) ** 2))


def _plans(
    base: BenchmarkResult,
    cand: BenchmarkResult,
    changes: list[Change],
    texts: tuple[PlanTexts, PlanTexts],
) -> None:
    """The plan verdict of each query when both results captured plans."""
    if base.plans is None or cand.plans is None:
        return
    b_recs, c_recs = first_records(base), first_records(cand)
    params_differ = _seeds(base) != _seeds(cand)
    for change in changes:
        if not change.column.startswith("Q"):
            continue
        q = int(change.column[1:])
        b, c = b_recs.get(q), c_recs.get(q)
        change.plan = verdict(b, c)
        if change.plan == "plan changed" and params_differ:  # other seeds, other literals
            change.plan = "parameters differ"
        if change.plan == "plan changed" and b is not None and c is not None:
            change.plan_diff = first_difference(
                texts[0].texts.get((b.run, b.stream, q)), texts[1].texts.get((c.run, c.stream, q))
            )


def _seeds(result: BenchmarkResult) -> list[dict[str, int]]:
    return [run.seeds for run in result.runs]


def _all_failed(result: BenchmarkResult, ok: dict[str, Distribution]) -> set[str]:
    """Columns with intervals that all failed (so no distribution)."""
    failed = {
        f"Q{iv.query}" if iv.kind == "query" else iv.kind.upper()
        for run in result.runs
        for iv in run.intervals
        if iv.status != "ok"
    }
    return failed - set(ok)
