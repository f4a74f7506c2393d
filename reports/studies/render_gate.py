"""The regression gate's output as a document: every format renders it (a plain table for
CI logs, Markdown for a job summary, HTML, JSON)."""

from __future__ import annotations

from typing import Any

from dbbench.reports import renderers
from dbbench.reports.document import Code, Document, Paragraph, Table, Warning
from dbbench.reports.studies.gate import BAD, Change, GateResult

#: the gate's formats: every output format
GATE_FORMATS: tuple[str, ...] = tuple(renderers.formats())
GATE_SCHEMA = "dbbench-gate"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:,.1f}"


def _pct(change: Change) -> str:
    p = change.percent
    return "n/a" if p is None else f"{p:+.1f} %"


def _interval(c: Change) -> str:
    if c.low is None or c.high is None:
        return "-"
    return f"{c.low:.2f}x-{c.high:.2f}x"


def _row(c: Change, by_interval: bool = False) -> list[str]:
    base = c.base.median if c.base else None
    cand = c.cand.median if c.cand else None
    row = [
        c.column,
        _ms(base),
        _ms(cand),
        _pct(c),
        f"{c.noise * 100:.0f} %",
        str(c.cand.n if c.cand else 0),
        c.verdict.upper() if c.verdict in ("regressed", "failed", "missing") else c.verdict,
        c.plan or "-",
    ]
    if by_interval:
        row.insert(5, _interval(c))
    return row


HEADS = ["query", "baseline ms", "candidate ms", "change", "noise", "n", "verdict", "plan"]
#: with repetitions on both sides: the interval beside the noise (its half-width)
INTERVAL_HEADS = [*HEADS[:5], "95 % interval", *HEADS[5:]]


def _plan_diffs(g: GateResult) -> list[tuple[str, list[str]]]:
    """(heading, lines) of each query whose plan changed: regressions first, then the rest,
    with the first plan lines that differ (a planner regression, not an executor one)."""
    changed = [c for c in g.changes if c.plan == "plan changed"]
    changed.sort(key=lambda c: c.verdict not in BAD)
    out = []
    for c in changed:
        shown = c.plan_diff or ["(the plan texts are not available: compare the plan files)"]
        out.append((f"{c.column} ({c.verdict}): plan changed, first differing lines", shown))
    return out


def _worst(c: Change) -> str:
    what = _pct(c) if c.ratio is not None else c.verdict
    return f"{c.column} {what}" + (
        f" ({c.plan})" if c.plan in ("same plan", "plan changed", "parameters differ") else ""
    )


def verdict_line(g: GateResult) -> str:
    if g.passed:
        return f"PASSED: no query regressed by more than {g.threshold:g} % beyond the noise"
    worst = ", ".join(_worst(c) for c in g.regressions)
    return f"FAILED: {len(g.regressions)} regression(s): {worst}"


def _summary(g: GateResult, base: str, cand: str) -> list[str]:
    geo = "n/a" if g.geomean_ratio is None else f"{g.geomean_ratio:.3f}x"
    how = (
        f"decided on the 95 % interval over {g.repetitions[0]} and {g.repetitions[1]} "
        "repetitions (a query regressed only where its interval lies above 1x), noise: the "
        "interval's half-width"
        if g.by_interval
        else "decided on the noise band (the larger interquartile range; give both sides two "
        "or more results, -b/-c, for intervals)"
    )
    return [
        f"candidate {cand} against baseline {base}: threshold {g.threshold:g} %, "
        "medians of full-resolution times over every run and stream",
        how,
        f"geometric mean of the median ratios: {geo}",
    ]


def gate_document(g: GateResult, base: str, cand: str) -> Document:
    """The gate's result: its summary, a row per query, each changed plan's first differing
    lines, its warnings and its verdict; the JSON report's data beside them."""
    doc = Document("Regression gate", data=gate_data(g, base, cand))
    heads = INTERVAL_HEADS if g.by_interval else HEADS
    numbers = frozenset(range(1, len(heads) - 2))
    doc.section(
        "Queries",
        *(Paragraph(f"{line}.") for line in _summary(g, base, cand)),
        Table(heads, [_row(c, g.by_interval) for c in g.changes], numbers, row_headers=True),
    )
    noisy = [c for c in g.changes if c.needed is not None]
    if noisy and g.by_interval:
        doc.section(
            "Noisy queries",
            Paragraph(
                "Where a query's interval is wider than the threshold it cannot resolve a "
                "change of the threshold's size: about this many repetitions per side (whole "
                "runs: -b/-c, or suite --repeat) would narrow it under the threshold."
            ),
            *(
                Paragraph(
                    f"{c.column}: interval {_interval(c)} (+/-{c.noise * 100:.0f} %) against "
                    f"{g.threshold:g} %, {c.repetitions} repetitions: about {c.needed} "
                    "repetitions per side."
                )
                for c in noisy
            ),
        )
    elif noisy:
        doc.section(
            "Noisy queries",
            Paragraph(
                "Where the noise is wider than the threshold it decides instead: about this "
                "many samples per side (more results of whole runs: -b/-c, or suite --repeat) "
                "would bring it under the threshold."
            ),
            *(
                Paragraph(
                    f"{c.column}: noise {c.noise * 100:.0f} % against {g.threshold:g} %, "
                    f"{c.cand.n if c.cand else 0} samples: about {c.needed} per side."
                )
                for c in noisy
            ),
        )
    for heading, diff in _plan_diffs(g):
        doc.section(f"{heading}:", Code(diff), level=3)
    doc.warnings += [Warning(w) for w in g.warnings]  # as the JSON data lists them
    doc.judge("", verdict_line(g), "pass" if g.passed else "fail")
    return doc


def _dist(d: Any) -> dict[str, Any] | None:
    if d is None:
        return None
    keys = ("n", "minimum", "p25", "median", "p75", "p95", "maximum", "failed")
    return {k: getattr(d, k) for k in keys}


def gate_data(g: GateResult, base: str, cand: str) -> dict[str, Any]:
    """The JSON report's own keys (``dbbench-gate``)."""
    return {
        "schema": GATE_SCHEMA,
        "schema_version": 1,
        "baseline": base,
        "candidate": cand,
        "threshold_percent": g.threshold,
        "passed": g.passed,
        "geomean_ratio": g.geomean_ratio,
        "decided_on": "interval" if g.by_interval else "noise band",
        "repetitions": list(g.repetitions),
        "warnings": g.warnings,
        "changes": [
            {
                "column": c.column,
                "verdict": c.verdict,
                "ratio": c.ratio,
                "noise": c.noise,
                "baseline": _dist(c.base),
                "candidate": _dist(c.cand),
                "plan": c.plan,
                "plan_diff": c.plan_diff,
                "samples_needed": c.needed,
                "low": c.low,
                "high": c.high,
            }
            for c in g.changes
        ],
    }


def render_gate(g: GateResult, base: str, cand: str, format: str = "text") -> str:
    """The gate's result in the format called ``format`` (any of :mod:`reports.renderers`)."""
    return renderers.render(gate_document(g, base, cand), format)
