"""The mixed result's report parts (facts, the points', interference and frontier tables,
the frontier chart, problems and warnings, the JSON summary: :mod:`reports.mixed.document`
makes the report of them) and its section of ``dbbench compare``. Every string from a
result passes through :mod:`reports.escape` for its format; every report carries
:data:`UNOFFICIAL`."""

from __future__ import annotations

import math
import time
from typing import Any

from dbbench.reports.chart import Plot, value_axis
from dbbench.reports.mixed.metrics import (
    UNOFFICIAL,
    FrontierPoint,
    MixedSummary,
    PointSummary,
    summarize_mixed,
)
from dbbench.reports.mixed.model import MixedResult, mixed_status
from dbbench.reports.o2c.charts import dot, frame
from dbbench.reports.tpch.summary import database_label

POINT_HEADER = [
    "point", "users", "streams", "status", "avg RT s", "p99 RT s", "dialog steps/h",
    "query sets/h", "queries", "TPC-H-like", "fresh p50 s", "fresh p99 s", "fresh max s",
    "verdict",
]  # fmt: skip
INTERFERENCE_HEADER = [
    "users", "streams", "avg RT mixed/alone s", "RT x", "steps/h mixed/alone", "steps x",
    "sets/h mixed/alone", "sets x", "fresh p99 mixed/alone s",
]  # fmt: skip
FRONTIER_HEADER = ["frontier point", "users", "streams", "dialog steps/h", "query sets/h"]


def _f(v: float, digits: int = 3) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:.{digits}f}"


def _n(v: float) -> str:
    return "-" if v is None or math.isnan(v) else f"{v:,.0f}"


def _x(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.2f}"


def point_row(p: PointSummary) -> list[str]:
    o, s, f = p.o2c, p.streams, p.freshness
    verdict = "pass" if p.passed else "valid, above RT limit" if p.valid else "INVALID"
    return [
        p.point.role + (f" ({p.point.source})" if p.point.source else ""),
        str(p.point.users),
        str(p.point.streams),
        p.point.status,
        _f(o.avg_rt) if o else "-",
        _f(o.overall.p99) if o else "-",
        _n(o.steps_per_hour) if o else "-",
        _n(s.sets_per_hour) if s else "-",
        str(s.queries) if s else "-",
        _n(s.tpch_like) if s else "-",
        _f(f.p50) if f else "-",
        _f(f.p99) if f else "-",
        _f(f.max) if f else "-",
        verdict,
    ]


def interference_rows(s: MixedSummary) -> list[list[str]]:
    return [
        [
            str(i.users),
            str(i.streams),
            f"{_f(i.rt_mixed)} / {_f(i.rt_alone)}",
            _x(i.rt_ratio),
            f"{_n(i.steps_mixed)} / {_n(i.steps_alone)}",
            _x(i.steps_ratio),
            f"{_n(i.sets_mixed)} / {_n(i.sets_alone)}",
            _x(i.sets_ratio),
            f"{_f(i.fresh_p99_mixed)} / {_f(i.fresh_p99_alone)}",
        ]
        for i in s.interference
    ]


def frontier_rows(s: MixedSummary) -> list[list[str]]:
    return [
        [f.label, str(f.users), str(f.streams), _n(f.steps_per_hour), _n(f.sets_per_hour)]
        for f in s.frontier
    ]


def _facts(r: MixedResult) -> list[tuple[str, str]]:
    c = r.config
    created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.created))
    return [
        ("engine", database_label(r.engine.name, r.engine.version)),
        ("scale factor", f"{r.scale_factor:g}"),
        ("kind", r.kind),
        ("created", created),
        ("o2c users", ", ".join(str(u) for u in c.get("users", []))),
        ("query streams", ", ".join(str(u) for u in c.get("streams", []))),
        ("think time", f"{c.get('think', '-')} s ({c.get('think_dist', 'fixed')})"),
        ("RT limit", f"avg {r.rt_limit:g} s"),
        ("refresh functions", "on" if c.get("refresh") else "off"),
        ("query timeout", f"{c['query_timeout']:g} s" if c.get("query_timeout") else "none"),
        ("freshness probe", f"every {c.get('freshness_interval', 0):g} s"),
        *_analytics(c),
        ("qgen seed0", str(c.get("seed0", "-"))),
        ("status", mixed_status(r.points)),
    ]


def _analytics(c: dict[str, Any]) -> list[tuple[str, str]]:
    """On a cluster: the node the streams and the freshness probe read on."""
    nodes = c.get("nodes") or []
    k = c.get("analytics_node", 1)
    if len(nodes) < 2 or not isinstance(k, int) or not 1 <= k <= len(nodes):
        return []
    return [("analytics node", f"{k}: {nodes[k - 1]} (users on all {len(nodes)})")]


def _problems(s: MixedSummary) -> list[str]:
    lines = []
    for p in s.points:
        if p.reasons:
            lines.append(
                f"{p.point.role} {p.point.users}x{p.point.streams}: " + "; ".join(p.reasons)
            )
    lines += s.result.errors[:20]
    return lines


def _warnings(s: MixedSummary) -> list[str]:
    seen: list[str] = []
    for p in s.points:
        for w in p.o2c.warnings if p.o2c else []:
            if w not in seen:
                seen.append(w)
    return seen


def _title(r: MixedResult) -> str:
    return "dbbench mixed " + ("frontier" if r.kind == "frontier" else "run")


def summary_dict(r: MixedResult) -> dict[str, Any]:
    s = summarize_mixed(r)

    def num(v: float | None) -> float | None:
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else round(v, 6)

    points = []
    for p in s.points:
        o, st, f = p.o2c, p.streams, p.freshness
        points.append(
            {
                "role": p.point.role, "users": p.point.users, "streams": p.point.streams,
                "status": p.point.status, "source": p.point.source, "valid": p.valid,
                "passed": p.passed, "reasons": p.reasons,
                "o2c": None if o is None else {
                    "avg_rt": num(o.avg_rt), "p99_rt": num(o.overall.p99),
                    "steps_per_hour": num(o.steps_per_hour), "steps": o.steps,
                    "failed_steps": o.errors, "passed": o.passed,
                },
                "streams_side": None if st is None else {
                    "queries": st.queries, "failed": st.failed,
                    "sets_per_hour": num(st.sets_per_hour),
                    "queries_per_hour": num(st.queries_per_hour),
                    "tpch_like": num(st.tpch_like), "geomean_seconds": num(st.geomean),
                },
                "freshness": None if f is None else {
                    "interval": f.interval, "invoices": f.invoices, "seen": f.seen,
                    "unseen": f.unseen, "p50": num(f.p50), "p99": num(f.p99),
                    "max": num(f.max), "reads": f.reads, "stale_reads": f.stale_reads,
                },
            }
        )  # fmt: skip
    return {
        "label": UNOFFICIAL,
        "kind": r.kind,
        "engine": r.engine.name,
        "scale_factor": r.scale_factor,
        "valid": s.valid,
        "passed": s.passed,
        "points": points,
        "interference": [
            {
                "users": i.users,
                "streams": i.streams,
                "rt_ratio": num(i.rt_ratio),
                "steps_ratio": num(i.steps_ratio),
                "sets_ratio": num(i.sets_ratio),
            }
            for i in s.interference
        ],
        "frontier": [
            {
                "label": f.label,
                "users": f.users,
                "streams": f.streams,
                "steps_per_hour": num(f.steps_per_hour),
                "sets_per_hour": num(f.sets_per_hour),
            }
            for f in s.frontier
        ],
    }


# -- the frontier chart ---------------------------------------------------------------------
#: the frontier chart's size and margins
FRONTIER = Plot(size=(640, 300), margins=(70, 30, 24, 44))


def frontier_svg(s: MixedSummary) -> str:
    """Query sets/h (y) against dialog steps/h (x): every measured point (filled: within
    the RT limit, open: above it or invalid), the frontier as a line, with its two ends."""
    dots: list[tuple[float, float, bool, str]] = []
    for p in s.points:
        x = p.o2c.steps_per_hour if p.o2c else 0.0
        y = p.streams.sets_per_hour if p.streams else 0.0
        if math.isnan(x) or math.isnan(y):
            continue
        label = f"{p.point.role}: {p.point.users} users, {p.point.streams} streams"
        dots.append((x, y, p.passed, label))
    if not dots:
        return ""
    xa = value_axis(max(d[0] for d in dots) or 1.0)
    ya = value_axis(max(d[1] for d in dots) or 1.0)

    def px(v: float) -> float:
        return FRONTIER.x(v, 0, xa.top)

    def py(v: float) -> float:
        return FRONTIER.y(v, ya.top)

    title = "Analytical against OLTP throughput (the HTAP frontier, unofficial)"
    out = frame(
        title,
        "dialog steps/h",
        "query sets/h",
        xa.top,
        ya.top,
        ya.ticks,
        plot=FRONTIER,
        xticks=xa.ticks,
        css="mixed-frontier",
    )
    line: list[FrontierPoint] = sorted(s.frontier, key=lambda f: f.steps_per_hour)
    if len(line) > 1:
        pts = " ".join(f"{px(f.steps_per_hour):.1f},{py(f.sets_per_hour):.1f}" for f in line)
        out.append(f'<polyline fill="none" stroke="#36c" stroke-width="2" points="{pts}"/>')
    for x, y, ok, label in dots:
        out.append(dot(px(x), py(y), ok, label))
    out.append("</svg>")
    return "\n".join(out)


# -- compare -------------------------------------------------------------------------------
COMPARE_HEADER = [
    "result", "engine", "SF", "users", "streams", "avg RT s", "dialog steps/h", "RT x",
    "query sets/h", "sets x", "fresh p99 s", "verdict",
]  # fmt: skip


def compare_rows(items: list[tuple[str, MixedResult]]) -> list[list[str]]:
    rows = []
    for label, r in items:
        s = summarize_mixed(r)
        for p in s.points:
            if p.point.role != "mixed":
                continue
            i = next(
                (
                    i
                    for i in s.interference
                    if (i.users, i.streams) == (p.point.users, p.point.streams)
                ),
                None,
            )
            rows.append(
                [
                    label,
                    r.engine.name,
                    f"{r.scale_factor:g}",
                    str(p.point.users),
                    str(p.point.streams),
                    _f(p.o2c.avg_rt) if p.o2c else "-",
                    _n(p.o2c.steps_per_hour) if p.o2c else "-",
                    _x(i.rt_ratio) if i else "-",
                    _n(p.streams.sets_per_hour) if p.streams else "-",
                    _x(i.sets_ratio) if i else "-",
                    _f(p.freshness.p99) if p.freshness else "-",
                    "pass" if p.passed else "valid, above RT limit" if p.valid else "INVALID",
                ]
            )
    return rows
