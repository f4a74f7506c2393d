"""Renderers of one result: terminal summary (rich), Markdown, self-contained HTML and JSON.

Templates ship inside the package (``reports/templates``) and are rendered with jinja2; the
HTML report inlines its CSS and its SVG chart so it opens offline and requests nothing.
Which format names exist, and which renderer each one means: ``reports.formats``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbbench.reports import formatting as fmt
from dbbench.reports.analysis import COLUMNS, RunSummary
from dbbench.reports.chart import render_svg
from dbbench.reports.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.formatting import plain
from dbbench.reports.model import (
    REPORT_HTML_FILE,
    REPORT_MD_FILE,
    SUMMARY_FILE,
    BenchmarkResult,
)
from dbbench.reports.render_studies import study_sections, text_lines
from dbbench.reports.safeio import write_text
from dbbench.reports.summary import Report, build_report
from dbbench.reports.templating import environment

REPORT_SCHEMA = "dbbench-report"
REPORT_VERSION = 1


def chart_svg(run: RunSummary) -> str:
    """The executive-summary chart of one run (unadjusted power times, throughput means)."""
    return render_svg(
        COLUMNS,
        run.power_times,
        run.throughput_means,
        run.power_geomean,
        run.throughput_mean,
        title=f"Run {run.number}: power-test times and throughput-test means",
    )


def _context(report: Report) -> dict[str, Any]:
    return {
        "r": report,
        "h": report.headline,
        "res": report.result,
        "columns": COLUMNS,
        **study_sections(report.result),
    }


def render_markdown(report: Report) -> str:
    return environment(markdown=True).get_template("report.md.j2").render(**_context(report))


def render_html(report: Report) -> str:
    css = environment().get_template("report.css").render()
    charts = {run.number: chart_svg(run) for run in report.runs}
    return (
        environment()
        .get_template("report.html.j2")
        .render(css=css, charts=charts, **_context(report))
    )


def _plain(value: Any) -> Any:
    """JSON-ready copy: dataclasses to dicts, Decimal to text (exact), dates to ISO."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def render_json(report: Report) -> str:
    """The derived numbers plus the (redacted) result they came from."""
    sheet = report.cost_sheet
    doc = {
        "schema": REPORT_SCHEMA,
        "schema_version": REPORT_VERSION,
        "headline": _plain(report.headline),
        "compliance": {"compliant": report.compliance.compliant, "reasons": report.reasons},
        "runs": [_plain(r) for r in report.runs],
        "cost": None
        if sheet is None
        else {
            "currency": sheet.currency,
            "total_3y": str(sheet.total_3y),
            "categories": [
                {"category": c.category, "purchase": str(c.purchase), "total": str(c.total)}
                for c in sheet.totals_by_category()
            ],
            "storage_gib": None if sheet.storage_gib is None else str(sheet.storage_gib),
            "items": _plain(sheet.items),
        },
        "notes": report.notes,
        "disclosure": report.disclosure,
        "result": _plain(report.result),
    }
    return json.dumps(doc, indent=2) + "\n"


def _headline_table(report: Report) -> Table:
    h = report.headline
    table = Table(title=f"TPC-H-derived result @ SF {fmt.sf(h.scale_factor)}", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    verdict = "compliant" if report.compliance.compliant else "NOT compliant"
    rows = [
        (f"QphH@{fmt.sf(h.scale_factor)}", f"{fmt.num1(h.qphh)}  ({h.qphh_note})"),
        ("Power@Size", fmt.num1(h.power)),
        ("Throughput@Size", fmt.num1(h.throughput)),
        ("Price/QphH", fmt.money(h.price_performance, h.currency)),
        ("Total system cost (3 years)", fmt.money_whole(h.total_cost, h.currency)),
        ("Availability date", fmt.day(h.availability_date)),
        ("Database", h.database),
        ("Operating system", h.os),
        ("Processors", h.processors),
        ("Memory", h.memory),
        ("Storage ratio", fmt.num2(h.storage_ratio)),
        ("Load time", h.load_time or fmt.NA),
        ("Streams", str(h.streams)),
        ("Compliance", verdict),
    ]
    for what, value in rows:  # Text: a "[/bold]" in a result is shown, not parsed
        table.add_row(Text(plain(what)), Text(plain(value)))
    return table


def render_text(report: Report, color: bool = False, width: int = 100) -> str:
    """The terminal summary; ``color`` only when the output is a terminal."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, force_terminal=color, no_color=not color, highlight=False
    )
    console.print(_headline_table(report))
    runs = Table(title="Runs")
    for col in ("run", "Power@Size", "Throughput@Size", "QphH@Size", "Ts"):
        runs.add_column(col, justify="right")
    for run in report.runs:
        ts = fmt.duration(run.ts_seconds)
        runs.add_row(
            str(run.number), fmt.num1(run.power), fmt.num1(run.throughput), fmt.num1(run.qphh), ts
        )
    console.print(runs)
    for reason in report.reasons:
        console.print(Text(plain(f"non-compliant: {reason}")))
    for note in report.notes:
        console.print(Text(plain(f"note: {note}")))
    for line in text_lines(report.result):
        console.print(Text(plain(line)))
    console.print(Text(plain(report.disclosure)))
    return buffer.getvalue()


def build(result: BenchmarkResult, cost_sheet: CostSheet | None = None) -> Report:
    return build_report(result, cost_sheet)


def write_reports(
    result: BenchmarkResult, out_dir: Path, cost_sheet: CostSheet | Path | None = None
) -> list[Path]:
    """Write report.md, report.html and summary.txt into ``out_dir``; return their paths.

    Called by ``dbbench run`` at the end of a run, and usable on any saved result.
    ``cost_sheet`` may be a parsed sheet or the path of a TOML cost sheet.
    """
    sheet = load_cost_sheet(cost_sheet) if isinstance(cost_sheet, Path) else cost_sheet
    report = build_report(result, sheet, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = {
        REPORT_MD_FILE: render_markdown(report),
        REPORT_HTML_FILE: render_html(report),
        SUMMARY_FILE: render_text(report),
    }
    paths = []
    for name, text in outputs.items():
        path = out_dir / name
        write_text(path, text)
        paths.append(path)
    return paths
