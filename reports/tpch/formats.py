"""The TPC-H run's own renderers of one result (``dbbench report``, its templates) and of a
comparison (``dbbench compare``), by format; every other format (JSON, and any format
module of :mod:`reports.renderers`) renders the run's document (:mod:`reports.tpch.document`).

The commands' ``--format`` choices and help text are :data:`REPORT_FORMATS` and
:data:`COMPARE_FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dbbench.reports import renderers as output_formats
from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch import render as report_renderers
from dbbench.reports.tpch import render_compare as landscape_renderers
from dbbench.reports.tpch.compare import Landscape
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.document import tpch_document
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.summary import Report, build_report


@dataclass(frozen=True)
class OutputFormat:
    """One format: how a report is rendered, and a comparison where the format has one."""

    report: Callable[[Report, bool], str]  # (report, color) -> text
    landscape: Callable[[Landscape], str] | None = None  # None: not offered by ``compare``


def _text(report: Report, color: bool) -> str:
    return report_renderers.render_text(report, color=color)


def _markdown(report: Report, color: bool) -> str:
    return report_renderers.render_markdown(report)


def _html(report: Report, color: bool) -> str:
    return report_renderers.render_html(report)


FORMATS: dict[str, OutputFormat] = {
    "text": OutputFormat(_text, landscape_renderers.render_text),
    "md": OutputFormat(_markdown, landscape_renderers.render_markdown),
    "html": OutputFormat(_html, landscape_renderers.render_html),
}

#: The formats of ``dbbench report`` and of ``dbbench compare``, in registry order.
REPORT_FORMATS: tuple[str, ...] = tuple(dict.fromkeys([*FORMATS, *output_formats.formats()]))
COMPARE_FORMATS: tuple[str, ...] = (*(n for n, f in FORMATS.items() if f.landscape), "json")


def choices_text(names: tuple[str, ...]) -> str:
    """``text, md, html or json``: the choices as a help text says them."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def render(
    result: BenchmarkResult,
    format: str = "text",
    cost_sheet: CostSheet | None = None,
    color: bool = False,
) -> str:
    """One report of ``result`` in ``format`` (one of :data:`REPORT_FORMATS`)."""
    if format not in FORMATS and format not in output_formats.formats():
        choices = ", ".join(REPORT_FORMATS)
        raise ReportsError(f"unknown report format {format!r} (choose from {choices})")
    report = build_report(result, cost_sheet)
    if format in FORMATS:
        return FORMATS[format].report(report, color)
    return output_formats.render(tpch_document(report), format)


def render_landscape(landscape: Landscape, format: str = "text") -> str:
    """The landscape in ``format`` (one of :data:`COMPARE_FORMATS`)."""
    renderer = FORMATS[format].landscape if format in FORMATS else None
    if renderer is None:
        choices = ", ".join(n for n, f in FORMATS.items() if f.landscape)
        raise ReportsError(f"unknown compare format {format!r} (choose from {choices})")
    return renderer(landscape)
