"""Renderers of one result: terminal summary (rich), Markdown, self-contained HTML and JSON.

Templates ship inside the package (``reports/templates``) and are rendered with jinja2; the
HTML report inlines its CSS and its SVG chart so it opens offline and requests nothing.
Which format names exist, and which renderer each one means: ``reports.tpch.formats``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from markupsafe import Markup
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbbench.reports import formatting as fmt
from dbbench.reports.chart import render_svg
from dbbench.reports.formatting import plain
from dbbench.reports.model import REPORT_HTML_FILE, REPORT_MD_FILE, SUMMARY_FILE
from dbbench.reports.renderers.text import table_lines
from dbbench.reports.safeio import write_text
from dbbench.reports.templating import environment
from dbbench.reports.tpch.analysis import COLUMNS, RunSummary, StreamRow
from dbbench.reports.tpch.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.tpch.latency import Distribution
from dbbench.reports.tpch.model import BenchmarkResult, RunResult
from dbbench.reports.tpch.render_studies import study_sections, text_lines
from dbbench.reports.tpch.settings import settings_table
from dbbench.reports.tpch.summary import Report, build_report
from dbbench.reports.tpch.telemetry import PhaseUsage, TelemetrySummary

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


#: the statistics rows of a run's timing table: label and :class:`Stat` attribute
_STAT_ROWS = (("Minimum", "minimum"), ("Maximum", "maximum"), ("Average", "average"))


@dataclasses.dataclass(frozen=True)
class TimingTable:
    """A run's table of timing intervals as the HTML report shows it, its cells formatted
    here (the template's expressions for each of its hundreds of cells were a third of the
    time of rendering a report): per stream row, its cells' classes (``n``, or each cell's
    when an interval failed: ``n fail``) and texts; per statistic, its label and texts; and
    the table of the streams' spans, a row of texts per stream. The template prints them
    (the ``cells`` and ``rows`` filters escape them)."""

    rows: list[tuple[StreamRow, str | list[str], list[str]]]
    stats: list[tuple[str, list[str]]]
    spans: list[list[str]]


def timing_table(run: RunSummary) -> TimingTable:
    rows: list[tuple[StreamRow, str | list[str], list[str]]] = []
    for row in run.rows:
        failed = [c in row.cells and row.cells[c] is None for c in COLUMNS]
        texts = [
            "failed" if f else fmt.num1(row.cells.get(c))
            for c, f in zip(COLUMNS, failed, strict=True)
        ]
        classes = ["n fail" if f else "n" for f in failed] if any(failed) else "n"
        rows.append((row, classes, texts))
    stats = [
        (
            label,
            [fmt.num1(getattr(run.stats[c], attr) if c in run.stats else None) for c in COLUMNS],
        )
        for label, attr in _STAT_ROWS
    ]
    spans = [
        [
            str(row.stream),
            str(row.seed) if row.seed is not None else "n/a",
            fmt.when(row.start),
            fmt.when(row.end),
            fmt.duration(row.seconds),
            fmt.when(row.rf_start),
            fmt.when(row.rf_end),
        ]
        for row in run.rows
    ]
    return TimingTable(rows, stats, spans)


def power_tables(
    report: Report, measured: dict[int, dict[str, float]]
) -> list[tuple[int, list[str], list[str]]]:
    """The latency section's table of each run's power test: its number, each column's
    reported interval and its measured one, formatted (``measured``: the measured seconds of
    the runs that have a power test, :func:`reports.tpch.render_studies.measured_power`)."""
    summaries = {run.number: run for run in reversed(report.runs)}  # the first of a number
    return [
        (
            number,
            [fmt.num1(summaries[number].power_times.get(c)) for c in COLUMNS],
            [fmt.ms(times.get(c)) for c in COLUMNS],
        )
        for number, times in measured.items()
    ]


def latency_rows(lat: list[Distribution]) -> list[list[str]]:
    """The latency table's rows: each distribution's column, n, times (min to max,
    formatted) and failures, as text."""
    return [
        [
            d.column,
            str(d.n),
            *[fmt.ms(v) for v in (d.minimum, d.p25, d.median, d.p75, d.p95, d.maximum)],
            str(d.failed),
        ]
        for d in lat
    ]


@dataclasses.dataclass(frozen=True)
class PhaseTables:
    """The resource tables of the HTML report, their cells formatted (each phase with its
    texts): the averages, per core (user / system / iowait), the engine's counters."""

    phases: list[tuple[PhaseUsage, list[str]]]
    cores: list[tuple[PhaseUsage, list[str]]]
    counters: list[tuple[PhaseUsage, list[str]]]


def phase_tables(tel: TelemetrySummary | None) -> PhaseTables:
    phases = tel.phases if tel is not None else []
    counters = tel.engine_counters if tel is not None else []
    num1, num2 = fmt.num1, fmt.num2
    return PhaseTables(
        [
            (
                p,
                [
                    num1(p.end - p.start),
                    num1(p.cpu_busy),
                    num1(p.cpu_user),
                    num1(p.cpu_system),
                    num1(p.cpu_iowait),
                    fmt.gib(p.mem_max),
                    num2(p.read_mbps),
                    num2(p.write_mbps),
                    num1(p.read_iops),
                    num1(p.write_iops),
                    num2(p.net_mbps),
                ],
            )
            for p in phases
        ],
        [(p, [f"{num1(u)} / {num1(s)} / {num1(w)}" for u, s, w in p.per_core]) for p in phases],
        [(p, [num1(p.engine.get(k)) for k in counters]) for p in phases],
    )


def parameter_tables(result: BenchmarkResult) -> list[tuple[RunResult, list[tuple[str, str, Any]]]]:
    """Each run that recorded its query parameters, with a row per stream and query: the
    values joined as the template's ``join`` filter joins them."""
    return [
        (
            run,
            [
                (stream, query, _joined(values))
                for stream, queries in run.params.items()
                for query, values in queries.items()
            ],
        )
        for run in result.runs
        if run.params
    ]


def _joined(values: list[str]) -> Any:
    """``values | join(", ")`` of an autoescaping template: the items as text, or (when one
    of them is markup) the others escaped and the result markup."""
    if any(hasattr(v, "__html__") for v in values):
        return Markup(", ").join(values)
    return ", ".join(map(str, values))


@functools.cache
def _css() -> str:
    """The report's style sheet (a template without a variable: rendered once)."""
    return environment().get_template("report.css").render()


def render_html(report: Report) -> str:
    context = _context(report)
    return (
        environment()
        .get_template("report.html.j2")
        .render(
            css=_css(),
            charts={run.number: chart_svg(run) for run in report.runs},
            timings={run.number: timing_table(run) for run in report.runs},
            power_tables=power_tables(report, context["measured_power"]),
            latency_rows=latency_rows(context["lat"]),
            parameter_tables=parameter_tables(report.result),
            phase_tables=phase_tables(context["tel"]),
            **context,
        )
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


def headline_facts(report: Report, gap: str = " ") -> list[tuple[str, str]]:
    """The executive summary's figures and disclosure, named (``gap``: before the QphH
    note); the text summary and every format's document show them."""
    h = report.headline
    return [
        (f"QphH@{fmt.sf(h.scale_factor)}", f"{fmt.num1(h.qphh)}{gap}({h.qphh_note})"),
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
    ]


def _headline_table(report: Report) -> Table:
    h = report.headline
    table = Table(title=f"TPC-H-derived result @ SF {fmt.sf(h.scale_factor)}", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    verdict = "compliant" if report.compliance.compliant else "NOT compliant"
    rows = [*headline_facts(report, "  "), ("Compliance", verdict)]
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
    settings = settings_table(report)
    if settings is not None:  # the document's table, as every other format shows it
        for line in table_lines(settings):
            console.print(Text(line))
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
