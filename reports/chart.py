"""The executive-summary chart [SPEC 8.4.2.3] as inline SVG: no script, no font, no request.

Per query (and refresh function): a white bar for the unadjusted power-test time and a black
bar for the throughput-test mean; a dashed line at the power test's geometric mean and a solid
line at the throughput test's arithmetic mean. The spec limits the value axis to at most 8
labels and its top to at most 120 % of the longest interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import escape

MAX_LABELS = 8


def svg_text(x: float, y: float, body: object, **attributes: object) -> str:
    """One ``<text>`` element: its body and every attribute escaped (so no chart writes a
    label of its own), coordinates to 0.1 unit; ``text_anchor="end"`` is written
    ``text-anchor="end"`` (underscores become hyphens; ``class_`` is ``class``), in the order
    given."""
    more = "".join(
        f' {k.rstrip("_").replace("_", "-")}="{escape(v)}"' for k, v in attributes.items()
    )
    return f'<text x="{x:.1f}" y="{y:.1f}"{more}>{escape(body)}</text>'


MAX_TOP_RATIO = 1.2
_NICE = (1.0, 2.0, 2.5, 5.0)


@dataclass(frozen=True)
class Axis:
    top: float
    ticks: list[float]


def _nice_steps(longest: float) -> list[float]:
    """Candidate tick steps (1, 2, 2.5, 5 x 10^k) around the longest interval, ascending."""
    exponent = math.floor(math.log10(longest)) - 2
    return [m * 10.0**e for e in range(exponent, exponent + 4) for m in _NICE]


def value_axis(longest: float) -> Axis:
    """The value axis: at most 8 labels, top between the longest bar and 120 % of it."""
    if longest <= 0:
        raise ValueError("the chart needs a positive longest interval")
    for step in _nice_steps(longest):
        top = math.ceil(longest / step - 1e-9) * step
        labels = round(top / step) + 1
        if labels <= MAX_LABELS and top <= longest * MAX_TOP_RATIO:
            return Axis(round(top, 10), [round(i * step, 10) for i in range(labels)])
    top = longest * MAX_TOP_RATIO  # no round top fits: ticks at a round step below it
    step = next(s for s in _nice_steps(longest) if math.floor(top / s) + 1 <= MAX_LABELS)
    return Axis(top, [round(i * step, 10) for i in range(math.floor(top / step) + 1)])


def _label(value: float) -> str:
    return format(value, ",.6g")


@dataclass(frozen=True)
class Plot:
    """A chart's size (width, height) and margins (left, right, top, bottom), in SVG units,
    and the plot area they leave: the executive summary's, the o2c charts' and the mixed
    frontier's geometry."""

    size: tuple[int, int]
    margins: tuple[int, int, int, int]

    @property
    def area(self) -> tuple[int, int, int, int]:
        """The plot area's edges: left and right (x), top and bottom (y; the x axis)."""
        (w, h), (left, right, top, bottom) = self.size, self.margins
        return left, w - right, top, h - bottom

    def x(self, v: float, lo: float, hi: float) -> float:
        """``v`` of an x axis from ``lo`` to ``hi`` as an x coordinate."""
        left, right, _, _ = self.area
        return left + (v - lo) / ((hi - lo) or 1.0) * (right - left)

    def y(self, v: float, top: float) -> float:
        """``v`` of a y axis from 0 to ``top`` as a y coordinate."""
        _, _, pad, bottom = self.area
        return bottom - v / (top or 1.0) * (bottom - pad)


#: the executive summary's geometry
SUMMARY_PLOT = Plot(size=(900, 360), margins=(60, 20, 30, 40))


@dataclass(frozen=True)
class _Frame:
    """The executive summary's plot and its value axis (seconds)."""

    axis: Axis
    plot: Plot = SUMMARY_PLOT

    def y(self, v: float) -> float:
        return self.plot.y(v, self.axis.top)

    def hline(self, v: float, cls: str) -> str:
        left, right, _, _ = self.plot.area
        return (
            f'<line x1="{left}" x2="{right}" y1="{self.y(v):.1f}" '
            f'y2="{self.y(v):.1f}" class="{cls}"/>'
        )


def _bars(
    f: _Frame, columns: Sequence[str], power: dict[str, float], throughput: dict[str, float]
) -> list[str]:
    """A white (power) and a black (throughput mean) bar per column, and the column label."""
    left, right, top_y, bottom = f.plot.area
    band = (right - left) / len(columns)
    bar = band * 0.36
    width = f"{bar:.1f}"
    label_y = bottom + 16
    # the frame's figures, looked up once (``y`` is :meth:`Plot.y`, computed once a bar)
    span, top = bottom - top_y, f.axis.top or 1.0
    out = []
    for i, col in enumerate(columns):
        x0 = left + i * band + band * 0.14
        name = escape(col)
        for value, cls, dx in ((power.get(col), "pw", 0.0), (throughput.get(col), "tp", bar)):
            if value is not None:
                y = bottom - value / top * span
                out.append(
                    f'<rect x="{x0 + dx:.1f}" y="{y:.1f}" width="{width}" '
                    f'height="{bottom - y:.1f}" class="{cls}">'
                    f"<title>{name}: {value:.1f} s</title></rect>"
                )
        out.append(
            f'<text x="{x0 + bar:.1f}" y="{label_y}" text-anchor="middle" class="cat">{name}</text>'
        )
    return out


def render_svg(
    columns: Sequence[str],
    power: dict[str, float],
    throughput: dict[str, float],
    power_geomean: float | None,
    throughput_mean: float | None,
    title: str = "",
) -> str:
    """The chart as an ``<svg>`` element string (empty string when there is nothing to draw)."""
    values = [*power.values(), *throughput.values()]
    if not values:
        return ""
    f = _Frame(value_axis(max(values)))
    (width, height), (left, _, top, bottom) = f.plot.size, f.plot.area
    out = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title or "query times")}" width="100%">'
    ]
    for tick in f.axis.ticks:
        out.append(
            f.hline(tick, "grid") + f'<text x="{left - 6}" y="{f.y(tick) + 4:.1f}" '
            f'text-anchor="end" class="tick">{_label(tick)}</text>'
        )
    out += _bars(f, columns, power, throughput)
    for value, cls in ((power_geomean, "gm"), (throughput_mean, "am")):
        if value is not None:
            out.append(f.hline(value, cls))
    mid = (top + bottom) / 2
    out.append(
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" '
        f'class="axis"/><text x="14" y="{mid:.0f}" class="tick" '
        f'transform="rotate(-90 14 {mid:.0f})" text-anchor="middle">seconds</text></svg>'
    )
    return "".join(out)
