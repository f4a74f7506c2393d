"""The regression gate's output: a plain table for CI logs, Markdown, and JSON."""

from __future__ import annotations

import json
from typing import Any

from dbbench.reports import escape as esc
from dbbench.reports.errors import ReportsError
from dbbench.reports.studies.gate import BAD, Change, GateResult

GATE_FORMATS: tuple[str, ...] = ("text", "md", "json")
GATE_SCHEMA = "dbbench-gate"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:,.1f}"


def _pct(change: Change) -> str:
    p = change.percent
    return "n/a" if p is None else f"{p:+.1f} %"


def _row(c: Change) -> list[str]:
    base = c.base.median if c.base else None
    cand = c.cand.median if c.cand else None
    return [
        c.column,
        _ms(base),
        _ms(cand),
        _pct(c),
        f"{c.noise * 100:.0f} %",
        str(c.cand.n if c.cand else 0),
        c.verdict.upper() if c.verdict in ("regressed", "failed", "missing") else c.verdict,
        c.plan or "-",
    ]


HEADS = ["query", "baseline ms", "candidate ms", "change", "noise", "n", "verdict", "plan"]


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
        f" ({c.plan})" if c.plan in ("same plan", "plan changed") else ""
    )


def verdict_line(g: GateResult) -> str:
    if g.passed:
        return f"PASSED: no query regressed by more than {g.threshold:g} % beyond the noise"
    worst = ", ".join(_worst(c) for c in g.regressions)
    return f"FAILED: {len(g.regressions)} regression(s): {worst}"


def _summary(g: GateResult, base: str, cand: str) -> list[str]:
    geo = "n/a" if g.geomean_ratio is None else f"{g.geomean_ratio:.3f}x"
    return [
        f"candidate {cand} against baseline {base}: threshold {g.threshold:g} %, "
        "medians of full-resolution times over every run and stream",
        f"geometric mean of the median ratios: {geo}",
    ]


def render_text(g: GateResult, base: str, cand: str) -> str:
    base, cand = esc.terminal(base), esc.terminal(cand)
    rows = [HEADS, *[[esc.terminal(v) for v in _row(c)] for c in g.changes]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADS))]
    lines = _summary(g, base, cand)
    for r in rows:
        cells = [
            r[0].ljust(widths[0]),
            *(v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True)),
        ]
        lines.append("  ".join(cells))
    for heading, diff in _plan_diffs(g):
        lines.append(esc.terminal(heading) + ":")
        lines += [f"    {esc.terminal(d)}" for d in diff]
    lines += [f"warning: {esc.terminal(w)}" for w in g.warnings]
    lines.append(esc.terminal(verdict_line(g)))
    return "\n".join(lines) + "\n"


def render_markdown(g: GateResult, base: str, cand: str) -> str:
    base, cand = esc.markdown(base), esc.markdown(cand)  # labels are file names: untrusted
    lines = ["# Regression gate", "", *(f"{s}." for s in _summary(g, base, cand)), ""]
    lines.append("| " + " | ".join(HEADS) + " |")
    lines.append("|---|" + "---:|" * (len(HEADS) - 2) + "---|")
    lines += ["| " + " | ".join(map(esc.markdown, _row(c))) + " |" for c in g.changes]
    lines.append("")
    for heading, diff in _plan_diffs(g):
        lines += [f"{esc.markdown(heading)}:", "", "```", *(d.replace("`", "'") for d in diff)]
        lines += ["```", ""]
    lines += [f"- warning: {esc.markdown(w)}" for w in g.warnings]
    lines.append(f"**{esc.markdown(verdict_line(g))}**")
    return "\n".join(lines) + "\n"


def _dist(d: Any) -> dict[str, Any] | None:
    if d is None:
        return None
    keys = ("n", "minimum", "p25", "median", "p75", "p95", "maximum", "failed")
    return {k: getattr(d, k) for k in keys}


def render_json(g: GateResult, base: str, cand: str) -> str:
    doc = {
        "schema": GATE_SCHEMA,
        "schema_version": 1,
        "baseline": base,
        "candidate": cand,
        "threshold_percent": g.threshold,
        "passed": g.passed,
        "geomean_ratio": g.geomean_ratio,
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
            }
            for c in g.changes
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def render_gate(g: GateResult, base: str, cand: str, format: str = "text") -> str:
    if format == "text":
        return render_text(g, base, cand)
    if format == "md":
        return render_markdown(g, base, cand)
    if format == "json":
        return render_json(g, base, cand)
    raise ReportsError(f"unknown gate format {format!r} (choose from {', '.join(GATE_FORMATS)})")
