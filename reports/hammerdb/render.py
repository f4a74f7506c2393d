"""The parts of a HammerDB result's report (TPROC-C, TPROC-H): its headline, tables and inline
SVG charts; :mod:`reports.hammerdb.document` makes the report of them (every format).

TPROC-C: the NOPM/TPM headline, the response-time table and box plot, TPM over time.
TPROC-H: geometric mean, query-set time and per-query bars. Charts are inline SVG.
"""

from __future__ import annotations

import math

from dbbench.reports.escape import html as _html
from dbbench.reports.hammerdb.model import HammerDBResult, HammerDBTiming
from dbbench.reports.tpch.summary import database_label

REPORT_SCHEMA = "dbbench-hammerdb-report"
_DISCLAIMER = (
    "HammerDB's TPROC-C and TPROC-H are derived from TPC-C and TPC-H; these results are not "
    "audited and are not TPC results."
)


def _n(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _database(r: HammerDBResult) -> str:
    return database_label(r.database, r.engine.version)


def _headline(r: HammerDBResult) -> list[tuple[str, str]]:
    rows = [
        ("Benchmark", f"HammerDB {r.benchmark}"),
        ("Status", r.status + ("" if not r.errors else f" ({len(r.errors)} errors)")),
        ("Database", _database(r)),
        ("Engine URL", r.engine.url),
        ("HammerDB", r.hammerdb_version or "unknown"),
        ("Job", f"{r.jobid} at {r.timestamp}" if r.jobid else "-"),
        ("Source", r.source),
    ]
    if r.benchmark == "TPROC-C":
        rows[1:1] = [("NOPM", _n(r.nopm)), ("TPM", _n(r.tpm))]
    else:
        rows[1:1] = [
            ("Geometric mean", f"{_n(r.geomean_seconds, 3)} s over {r.queries or '-'} queries"),
            ("Query sets", f"{r.query_sets or '-'} in {_n(r.total_query_seconds, 1)} s"),
        ]
    config = ", ".join(f"{k} {v}" for k, v in r.config.items())
    if config:
        rows.append(("Configuration", config))
    if r.build:
        rows.append(
            ("Schema build", f"{_n(r.build.get('seconds'), 1)} s (job {r.build.get('jobid')})")
        )
    machine = ", ".join(p for p in (r.system.hostname, r.system.cpu_model, r.system.os) if p)
    if machine:
        rows.append(("System", machine))
    return rows


_TIMING_COLS = ("calls", "min_ms", "avg_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "ratio_pct")


def _timing_row(t: HammerDBTiming) -> list[str]:
    return [t.name] + [_n(getattr(t, c), 0 if c == "calls" else 3) for c in _TIMING_COLS]


def _query_summary(r: HammerDBResult) -> list[tuple[int, float, int]]:
    """Per query: the mean seconds over all virtual users and sets, and the count."""
    acc: dict[int, list[float]] = {}
    for q in r.query_times:
        acc.setdefault(q.query, []).append(q.seconds)
    return [(q, sum(v) / len(v), len(v)) for q, v in sorted(acc.items())]


# --- SVG charts ------------------------------------------------------------------------------


def _tag(name: str, text: str = "", **attrs: object) -> str:
    """One SVG element; numbers rounded to 0.1, ``font_size`` spelt ``font-size``."""
    parts = []
    for key, value in attrs.items():
        shown = f"{value:.1f}" if isinstance(value, float) else _html(str(value))
        parts.append(f'{key.replace("_", "-")}="{shown}"')
    open_ = f"<{name} {' '.join(parts)}"
    return f"{open_}>{_html(text)}</{name}>" if text else f"{open_}/>"


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{_html(title)}">'
        f"<title>{_html(title)}</title>" + "".join(body) + "</svg>"
    )


def boxplot_svg(timings: list[HammerDBTiming]) -> str:
    """Per transaction: whisker min..p99, box p50..p95, a tick at the mean; log scale."""
    rows = [t for t in timings if t.p50_ms is not None and t.p99_ms is not None]
    if not rows:
        return ""
    lo = max(min((t.min_ms or t.p50_ms or 1.0) for t in rows), 1e-3)
    hi = max((t.p99_ms or 1.0) for t in rows) * 1.2
    left, width, row_h = 90, 480, 30
    height = 40 + row_h * len(rows)

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return left + width * (math.log10(v) - math.log10(lo)) / (
            math.log10(hi) - math.log10(lo) or 1
        )

    body = []
    for i, t in enumerate(rows):
        y = 20 + i * row_h
        mid = y + row_h / 2
        p50, p95, p99 = t.p50_ms or lo, t.p95_ms or lo, t.p99_ms or lo
        body += [
            _tag("text", t.name, x=left - 8, y=mid + 4, text_anchor="end", font_size=12),
            _tag("line", x1=x(t.min_ms or p50), x2=x(p99), y1=mid, y2=mid, stroke="#555"),
            _tag(
                "rect",
                x=x(p50),
                y=y + 6,
                width=max(x(p95) - x(p50), 1),
                height=row_h - 12,
                fill="#7aa6d6",
                stroke="#345",
            ),
        ]
        if t.avg_ms is not None:
            ax = x(t.avg_ms)
            body.append(
                _tag(
                    "line", x1=ax, x2=ax, y1=y + 4, y2=y + row_h - 4, stroke="#c33", stroke_width=2
                )
            )
    for v in (lo, math.sqrt(lo * hi), hi):
        body.append(
            _tag("text", f"{v:.2f} ms", x=x(v), y=height - 6, text_anchor="middle", font_size=10)
        )
    return _svg(
        left + width + 30,
        height,
        body,
        "Response times: min-p99 whisker, p50-p95 box, mean tick (log scale)",
    )


def line_svg(values: list[float], labels: list[str], title: str) -> str:
    if len(values) < 2:
        return ""
    left, width, height, top = 70, 480, 200, 20
    vmax = max(values) * 1.1 or 1.0
    pts = [
        (left + width * i / (len(values) - 1), top + height * (1 - v / vmax))
        for i, v in enumerate(values)
    ]
    path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
    body = [
        f'<polyline points="{path}" fill="none" stroke="#2a6" stroke-width="2"/>',
        _tag("line", x1=left, x2=left + width, y1=top + height, y2=top + height, stroke="#999"),
        _tag("text", f"{vmax:,.0f}", x=left - 6, y=top + 10, text_anchor="end", font_size=10),
        _tag("text", "0", x=left - 6, y=top + height, text_anchor="end", font_size=10),
        _tag("text", labels[0], x=left, y=top + height + 16, font_size=10),
        _tag(
            "text",
            labels[-1],
            x=left + width,
            y=top + height + 16,
            text_anchor="end",
            font_size=10,
        ),
    ]
    return _svg(left + width + 20, height + 50, body, title)


def bars_svg(items: list[tuple[str, float]], title: str, unit: str = "s") -> str:
    if not items:
        return ""
    left, width, bar_h = 50, 460, 16
    vmax = max(v for _, v in items) or 1.0
    body = []
    for i, (name, v) in enumerate(items):
        y = 10 + i * (bar_h + 4)
        w = width * v / vmax
        body += [
            _tag("text", name, x=left - 6, y=y + 12, text_anchor="end", font_size=11),
            _tag("rect", x=left, y=y, width=max(w, 1), height=bar_h, fill="#d68a3a"),
            _tag("text", f"{v:.3f} {unit}", x=left + max(w, 1) + 4, y=y + 12, font_size=10),
        ]
    return _svg(left + width + 90, 20 + len(items) * (bar_h + 4), body, title)
