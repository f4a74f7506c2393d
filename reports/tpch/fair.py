"""The one comparison rule of ``compare``, ``suite`` and the site (see ``docs/comparisons.md``).

* **Queries**: Q1-Q22 only. RF1/RF2 change the database and are reported apart, never in
  the headline.
* **Timings**: each entry's own power-test time of each query (full resolution), the median
  over the performance runs of one benchmark. Throughput streams are not pooled in.
* **Direction**: ``speed-up = baseline seconds / entry seconds``: above 1 the entry is
  faster than the baseline, below 1 slower. Every output says so (:data:`DIRECTION`).
* **Failures**: a query that failed or timed out anywhere in the run (any stream, any run)
  is charged a penalty (:data:`PENALTY_RULE`) instead of a time, and the entry is invalid.
* **Repetitions**: independent samples are whole benchmarks (``suite --repeat N``, run
  interleaved), never the streams of one run. Repetition *i* of an entry is paired with
  repetition *i* of the baseline (they ran next to each other); the interval of a ratio is
  the Student-t 95 % interval of the mean log ratio over the pairs, exponentiated. Where an
  interval spans 1.0 the verdict is "not distinguishable".
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from dbbench.reports.document import Items, Paragraph, Section, Table
from dbbench.reports.tpch.analysis import QUERY_COLUMNS
from dbbench.reports.tpch.model import BenchmarkResult

DIRECTION = "speed-up = baseline time / entry time: above 1x the entry is faster than the baseline"
PENALTY_FACTOR = 3.0
DEFAULT_PENALTY = 300.0  # seconds: a query no entry finished, in runs without a timeout
PENALTY_RULE = (
    "a failed or timed-out query is charged the run's query timeout, or without one "
    f"{PENALTY_FACTOR:g} x the slowest time any compared entry measured for it "
    f"({DEFAULT_PENALTY:g} s if none did), and its entry is marked invalid"
)
#: Two-sided 95 % Student-t quantiles by degrees of freedom (1..30); beyond: the normal's.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    return _T95[df - 1] if 1 <= df <= len(_T95) else 1.960


@dataclass
class Sample:
    """One benchmark (one repetition) of one entry: its power-test seconds per query."""

    times: dict[str, float]  # measured, successful queries
    failed: set[str]  # queries with a failed or timed-out interval (any stream, any run)
    timeout: float | None


@dataclass
class Ratio:
    """A speed-up with its 95 % interval (None: fewer than two repetitions)."""

    value: float | None
    low: float | None = None
    high: float | None = None

    @property
    def verdict(self) -> str:
        if self.value is None:
            return "n/a"
        if self.low is None or self.high is None:
            return "single run, no interval"
        if self.low <= 1.0 <= self.high:
            return "not distinguishable"
        return "faster" if self.low > 1.0 else "slower"

    def text(self) -> str:
        if self.value is None:
            return "n/a"
        if self.low is None or self.high is None:
            return f"{self.value:.2f}x"
        return f"{self.value:.2f}x [{self.low:.2f}-{self.high:.2f}]"


@dataclass
class QueryRow:
    column: str
    seconds: list[float | None]  # per entry, charged (median over repetitions)
    penalised: list[bool]  # per entry: a penalty is in the figure
    ratios: list[Ratio]


@dataclass
class Fair:
    """The comparison of entries (each a list of repetitions) against the first."""

    labels: list[str]
    repetitions: list[int]
    queries: list[QueryRow]
    headline: list[Ratio]
    invalid: list[bool]
    baseline: str = ""
    missing: list[str] = field(default_factory=list)  # queries the baseline never ran
    direction: str = DIRECTION
    rule: str = PENALTY_RULE
    not_comparable: list[str] = field(default_factory=list)  # why no winner may be named

    def verdict(self, i: int) -> str:
        """The headline sentence of entry ``i``: a winner only where the interval says so."""
        label, h = self.labels[i], self.headline[i]
        if self.not_comparable:
            why = "; ".join(self.not_comparable)
            return f"{label}: not comparable with {self.baseline} ({why}): no winner named"
        note = " (invalid: penalties charged)" if self.invalid[i] or self.invalid[0] else ""
        if h.value is None:
            return f"{label}: no speed-up (no query measured)"
        if h.verdict == "not distinguishable":
            return f"{label}: not distinguishable from {self.baseline} ({h.text()} spans 1x){note}"
        if h.low is None:
            return (
                f"{label}: {h.value:.2f}x against {self.baseline} (one repetition: no interval, "
                f"so no verdict; suite --repeat 3 gives one){note}"
            )
        word = "faster" if h.value >= 1 else "slower"
        factor = h.value if h.value >= 1 else 1 / h.value
        return f"{label}: {factor:.2f}x {word} than {self.baseline} ({h.text()}){note}"

    def plain(self) -> dict[str, object]:
        return {
            "baseline": self.baseline,
            "direction": self.direction,
            "penalty_rule": self.rule,
            "entries": [
                {
                    "label": label,
                    "repetitions": self.repetitions[i],
                    "invalid": self.invalid[i],
                    "speedup": self.headline[i].value,
                    "speedup_low": self.headline[i].low,
                    "speedup_high": self.headline[i].high,
                    "verdict": self.verdict(i) if i else "baseline",
                }
                for i, label in enumerate(self.labels)
            ],
            "queries": [
                {
                    "query": q.column,
                    "seconds": q.seconds,
                    "penalised": q.penalised,
                    "speedup": [r.value for r in q.ratios],
                    "low": [r.low for r in q.ratios],
                    "high": [r.high for r in q.ratios],
                    "verdict": [r.verdict for r in q.ratios],
                }
                for q in self.queries
            ],
            "missing": self.missing,
            "not_comparable": self.not_comparable,
        }


def sample(result: BenchmarkResult) -> Sample:
    """The power-test seconds of each query (median over the runs) and every failed query; a
    query the power test never finished (a stopped run, a failed benchmark) counts as failed:
    it is charged, never left out."""
    times: dict[str, list[float]] = {}
    failed: set[str] = set()
    for run in result.runs:
        for iv in run.intervals:
            if iv.kind != "query" or iv.query is None:
                continue
            col = f"Q{iv.query}"
            if iv.status != "ok" or iv.seconds < 0:
                failed.add(col)
            elif iv.phase == "power":
                times.setdefault(col, []).append(iv.seconds)
    failed |= {c for c in QUERY_COLUMNS if c not in times}
    timeout = result.config.get("query_timeout")
    ok_timeout = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
    return Sample(
        {c: statistics.median(v) for c, v in times.items() if c not in failed},
        failed,
        ok_timeout,
    )


def penalties(samples: Sequence[Sequence[Sample]]) -> dict[str, float]:
    """Per query, what a failure is charged when its run had no timeout."""
    out = {}
    for col in QUERY_COLUMNS:
        seen = [s.times[col] for reps in samples for s in reps if col in s.times]
        out[col] = PENALTY_FACTOR * max(seen) if seen else DEFAULT_PENALTY
    return out


def charged(s: Sample, col: str, penalty: dict[str, float]) -> float | None:
    if col in s.failed:
        return s.timeout if s.timeout is not None else penalty[col]
    return s.times.get(col)


def _geo(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def interval(logs: Sequence[float]) -> Ratio:
    """The ratio of mean log ``logs`` with its t interval (two or more samples)."""
    if not logs:
        return Ratio(None)
    mean = sum(logs) / len(logs)
    if len(logs) < 2:
        return Ratio(math.exp(mean))
    half = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half))


def differences(results: Sequence[BenchmarkResult]) -> list[str]:
    """Why these results' per-query times do not measure the same thing: other kit
    versions, or other substitution parameters (the power test's seed)."""
    out = []
    kits = sorted({r.kit_version for r in results})
    if len(kits) > 1:
        out.append(f"kit versions differ ({', '.join(kits)})")
    seeds = sorted({str(r.runs[0].seeds.get("0")) for r in results if r.runs})
    if len(seeds) > 1:
        out.append(f"substitution parameters differ (power-test seeds {', '.join(seeds)})")
    return out


_REPETITION = re.compile(r"-r\d+$")


def grouped(
    items: Sequence[tuple[str, BenchmarkResult]],
) -> list[tuple[str, list[BenchmarkResult]]]:
    """Labelled results pooled by label, a trailing ``-rN`` (a suite's repetition) dropped,
    in the order of their first appearance."""
    groups: dict[str, list[BenchmarkResult]] = {}
    for label, result in items:
        groups.setdefault(_REPETITION.sub("", label), []).append(result)
    return list(groups.items())


def build(entries: Sequence[tuple[str, Sequence[BenchmarkResult]]]) -> Fair:
    """The comparison of ``entries`` (label, its repetitions in run order); the first entry
    is the baseline."""
    samples = [[sample(r) for r in reps] for _, reps in entries]
    penalty = penalties(samples)
    base = samples[0]
    cols = [c for c in QUERY_COLUMNS if any(c in s.times or c in s.failed for s in base)]
    missing = [c for c in QUERY_COLUMNS if c not in cols]
    rows = []
    per_rep_logs: list[list[list[float]]] = [[[] for _ in reps] for reps in samples]
    for col in cols:
        seconds: list[float | None] = []
        flags, ratios = [], []
        for e, reps in enumerate(samples):
            values = [charged(s, col, penalty) for s in reps]
            known = [v for v in values if v is not None and v > 0]
            seconds.append(statistics.median(known) if known else None)
            flags.append(any(col in s.failed for s in reps))
            logs = []
            for i, v in enumerate(values):
                b = charged(base[i], col, penalty) if i < len(base) else None
                if v is not None and b is not None and v > 0 and b > 0:
                    logs.append(math.log(b / v))
                    per_rep_logs[e][i].append(math.log(b / v))
            ratios.append(interval(logs))
        rows.append(QueryRow(col, seconds, flags, ratios))
    headline = []
    for e in range(len(samples)):
        complete = [sum(lg) / len(lg) for lg in per_rep_logs[e] if len(lg) == len(cols) and lg]
        headline.append(interval(complete))
    invalid = [any(s.failed for s in reps) for reps in samples]
    labels = [label for label, _ in entries]
    return Fair(labels, [len(r) for r in samples], rows, headline, invalid, labels[0], missing)


def _intro(fair: Fair) -> list[str]:
    out = [
        "Speed-up against the baseline over Q1-Q22 (power test; "
        f"{fair.direction}; 95 % interval over independent repetitions in brackets)",
        f"Failures: {fair.rule}.",
        "Times: the median over the repetitions; speed-ups: the geometric mean of each "
        "repetition's ratio to the baseline's repetition run next to it.",
    ]
    if fair.missing:
        out.append(f"Not in the baseline, left out for all: {', '.join(fair.missing)}.")
    return out


def _table(fair: Fair) -> tuple[list[str], list[list[str]]]:
    """The per-query table's header and rows, the geometric mean and each entry's status
    last."""
    reps = zip(fair.labels, fair.repetitions, strict=True)
    head = ["Query", *(f"{lbl} (x{n})" for lbl, n in reps)]
    body = []
    for q in fair.queries:
        cells = [q.column]
        for i, r in enumerate(q.ratios):
            secs = q.seconds[i]
            t = "n/a" if secs is None else f"{secs * 1000:,.1f} ms"
            pen = " PENALTY" if q.penalised[i] else ""
            cells.append(t + pen if i == 0 else f"{t}{pen} {r.text()}")
        body.append(cells)
    body.append(
        ["geo. mean", *("1.00x" if i == 0 else h.text() for i, h in enumerate(fair.headline))]
    )
    body.append(["status", *("INVALID" if bad else "valid" for bad in fair.invalid)])
    return head, body


def fair_section(fair: Fair, title: str = "Over the repetitions") -> Section:
    """The rule's per-query speed-ups with intervals and the headline verdicts, as a
    document section (every format renders it)."""
    head, body = _table(fair)
    return Section(
        title,
        [
            *(Paragraph(line) for line in _intro(fair)),
            Table(head, body, frozenset(range(1, len(head)))),
            Items([fair.verdict(i) for i in range(1, len(fair.labels))]),
        ],
    )
