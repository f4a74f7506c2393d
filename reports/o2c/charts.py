"""Inline SVG charts of an o2c result: no script, no font, no request (works offline).

* users logged on and dialog steps per second over the probe's time, the measured window
  shaded;
* the distribution of dialog response times in the window (histogram);
* for a search: average dialog response time against users, with the limit line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import escape

from dbbench.reports.chart import Plot, svg_text, value_axis
from dbbench.reports.escape import html as html_text
from dbbench.reports.o2c.model import O2CProbe

#: the o2c charts' geometry
O2C_PLOT = Plot(size=(640, 260), margins=(56, 56, 16, 40))


def _x(v: float, lo: float, hi: float) -> float:
    return O2C_PLOT.x(v, lo, hi)


def _y(v: float, top: float) -> float:
    return O2C_PLOT.y(v, top)


def _fmt(v: float) -> str:
    return f"{v:,.10g}" if v >= 1 or v == 0 else f"{v:.3g}"  # 20,000, not 2e+04


def frame(
    title: str,
    xlabel: str,
    ylabel: str,
    xmax: float,
    ytop: float,
    ticks: Sequence[float],
    *,
    plot: Plot = O2C_PLOT,
    xticks: Sequence[float] | None = None,
    css: str = "o2c-chart",
) -> list[str]:
    """A chart's opening: the title, both axes with their grid, ticks and labels (x from 0 to
    ``xmax``, ticks ``xticks`` or round ones; y from 0 to ``ytop``, ticks ``ticks``)."""
    w, h = plot.size
    left, right, top, bottom = plot.area
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" role="img" '
        f'aria-label="{escape(title)}" class="{escape(css)}">',
        svg_text(w / 2, 12, title, text_anchor="middle", font_size=12),
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="black"/>',
    ]
    for t in ticks:
        y = plot.y(t, ytop)
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(svg_text(left - 6, y + 4, _fmt(t), text_anchor="end", font_size=10))
    for v in x_ticks(xmax) if xticks is None else xticks:  # round values, inside the plot
        tick = f"{v:,.10g}"
        out.append(
            svg_text(plot.x(v, 0, xmax), bottom + 14, tick, text_anchor="middle", font_size=10)
        )
    out.append(svg_text(w / 2, h - 6, xlabel, text_anchor="middle", font_size=11))
    turn = f"rotate(-90 12 {h / 2})"
    out.append(svg_text(12, h / 2, ylabel, font_size=11, transform=turn, text_anchor="middle"))
    return out


def x_ticks(xmax: float) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 x 10^k steps) from 0 to at most ``xmax``."""
    if not xmax > 0:
        return [0.0]
    return [t for t in value_axis(xmax).ticks if t <= xmax + 1e-9]


def _polyline(points: Sequence[tuple[float, float]], xmax: float, ytop: float, style: str) -> str:
    pts = " ".join(f"{_x(x, 0, xmax):.1f},{_y(y, ytop):.1f}" for x, y in points)
    return f'<polyline fill="none" {style} points="{pts}"/>'


def dot(cx: float, cy: float, ok: bool, title: str) -> str:
    """A measured point at (``cx``, ``cy``): filled when it passed, open when it did not,
    ``title`` (escaped here) shown on hover."""
    fill = "black" if ok else "white"
    return (
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{fill}" stroke="black">'
        f"<title>{html_text(title)}</title></circle>"
    )


def timeline_svg(
    probe: O2CProbe, throughput: list[tuple[float, float]], logons: list[float]
) -> str:
    """Dialog steps per second (solid) and users logged on (dashed, scaled to the top)."""
    _, right, top, bottom = O2C_PLOT.area
    xmax = max(probe.end, 1e-3)
    top_tp = max((v for _, v in throughput), default=1.0) or 1.0
    axis = value_axis(top_tp)
    out = frame(
        "Throughput and users over time",
        "seconds since start",
        "dialog steps/s",
        xmax,
        axis.top,
        axis.ticks,
    )
    x0, x1 = _x(probe.window_start, 0, xmax), _x(min(probe.window_end, xmax), 0, xmax)
    out.insert(
        4,
        f'<rect x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 0):.1f}" '
        f'height="{bottom - top}" '
        'fill="#eef4ff"><title>steady-state window (measured)</title></rect>',
    )
    if throughput:
        bucket = throughput[1][0] if len(throughput) > 1 else 1.0
        pts = [(min(t + bucket / 2, xmax), v) for t, v in throughput]  # bucket middles
        out.append(_polyline(pts, xmax, axis.top, 'stroke="black" stroke-width="1.5"'))
    users = max(probe.users, 1)
    steps = [(0.0, 0.0)] + [(t, (i + 1) * axis.top / users) for i, t in enumerate(logons)]
    steps.append((xmax, len(logons) * axis.top / users))
    out.append(_polyline(steps, xmax, axis.top, 'stroke="#555" stroke-dasharray="4 3"'))
    at = _y(axis.top, axis.top) + 12
    out.append(svg_text(right - 4, at, f"{users:,} users", font_size=10, text_anchor="end"))
    out.append("</svg>")
    return "\n".join(out)


def histogram_svg(rts: list[float], limit: float) -> str:
    """Response times in the window, 30 buckets up to the 99.5th percentile."""
    left, right, top, bottom = O2C_PLOT.area
    if not rts:
        return ""
    v = sorted(rts)
    hi = max(v[min(len(v) - 1, int(len(v) * 0.995))], 1e-6)
    n = 30
    counts = [0] * n
    for x in v:
        counts[min(n - 1, int(x / hi * n))] += 1
    axis = value_axis(max(counts) or 1)
    out = frame(
        "Dialog response time distribution (steady state)",
        "response time, s",
        "dialog steps",
        hi,
        axis.top,
        axis.ticks,
    )
    width = (right - left) / n
    for i, c in enumerate(counts):
        x = left + i * width
        y = _y(c, axis.top)
        out.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{width - 2:.1f}" '
            f'height="{bottom - y:.1f}" fill="#333"/>'
        )
    if limit <= hi:
        xl = _x(limit, 0, hi)
        out.append(f'<line x1="{xl:.1f}" y1="{top}" x2="{xl:.1f}" y2="{bottom}" stroke="red"/>')
    out.append("</svg>")
    return "\n".join(out)


def search_svg(
    points: list[tuple[int, float, bool]],
    limit: float,
    p90: Sequence[float] = (),
    p99: Sequence[float] = (),
) -> str:
    """Average dialog RT against users (filled: pass, open: fail), the limit line, and the
    p90 and p99 beside the average (in the order of ``points``)."""
    left, right, _, _ = O2C_PLOT.area
    if not points:
        return ""
    order = sorted(range(len(points)), key=lambda i: points[i])
    pts = [points[i] for i in order]
    extra = {
        name: [(points[i][0], vals[i]) for i in order if not math.isnan(vals[i])]
        for name, vals in (("p90", p90), ("p99", p99))
        if len(vals) == len(points)
    }
    xmax = max(p[0] for p in pts) * 1.1
    finite = [p[1] for p in pts if not math.isnan(p[1])]
    finite += [v for line in extra.values() for _, v in line]
    axis = value_axis(max([limit, *finite]))
    out = frame(
        "Dialog response time (avg; p90, p99 dashed) against users",
        "users",
        "dialog RT, s",
        xmax,
        axis.top,
        axis.ticks,
    )
    yl = _y(limit, axis.top)
    out.append(
        f'<line x1="{left}" y1="{yl:.1f}" x2="{right}" y2="{yl:.1f}" stroke="red" '
        'stroke-dasharray="6 3"/>'
    )
    out.append(svg_text(right - 4, yl - 4, "limit", font_size=10, fill="red", text_anchor="end"))
    out.append(
        _polyline([(u, r) for u, r, _ in pts if not math.isnan(r)], xmax, axis.top, 'stroke="#999"')
    )
    for name, line in extra.items():
        dash = "2 2" if name == "p90" else "6 2"
        out.append(_polyline(line, xmax, axis.top, f'stroke="#555" stroke-dasharray="{dash}"'))
        if line:
            u, v = line[-1]
            at_x, at_y = _x(u, 0, xmax) - 6, _y(v, axis.top) - 4
            out.append(svg_text(at_x, at_y, name, font_size=9, text_anchor="end"))
    for u, r, ok in pts:
        if math.isnan(r):
            continue
        out.append(dot(_x(u, 0, xmax), _y(r, axis.top), ok, f"{u:,} users: {r:.3f} s"))
    out.append("</svg>")
    return "\n".join(out)
