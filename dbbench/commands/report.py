"""The ``dbbench report`` and ``dbbench compare`` commands: thin wrappers over reports."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from dbbench.reports.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.errors import ReportsError
from dbbench.reports.formats import (
    COMPARE_FORMATS,
    REPORT_FORMATS,
    choices_text,
    render,
    render_landscape,
)
from dbbench.reports.hammerdb_compare import render_section
from dbbench.reports.hammerdb_render import render as render_hammerdb
from dbbench.reports.loading import load_any_result, load_result_noted
from dbbench.reports.model import BenchmarkResult, HammerDBResult
from dbbench.reports.o2c_compare import render_landscape as render_o2c_landscape
from dbbench.reports.o2c_render import O2C_FORMATS, is_o2c_result, load_o2c, render_o2c
from dbbench.reports.published import PublishedResult, is_published_record, load_published
from dbbench.reports.render_compare import label_for, landscape_for


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {output}", err=True)


def _check_format(value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}")
    return value


def report(
    result: Annotated[Path, typer.Argument(help="A result JSON file or a run directory.")],
    cost_sheet: Annotated[
        Path | None,
        typer.Option("--cost-sheet", "-c", help="TOML cost sheet of the priced configuration."),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"{choices_text(REPORT_FORMATS)}.")
    ] = "text",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE.")] = None,
) -> None:
    """Rebuild the report of a saved result (no engine needed)."""
    if is_o2c_result(result):  # an o2c run or search: a result family of its own
        _check_format(format, O2C_FORMATS)
        _emit(render_o2c(load_o2c(result), format), output)
        return
    _check_format(format, REPORT_FORMATS)
    loaded = load_any_result(result)
    if isinstance(loaded, HammerDBResult):  # HammerDB's TPROC-C / TPROC-H (issue 11)
        _emit(render_hammerdb(loaded, format), output)
        return
    sheet = load_cost_sheet(cost_sheet) if cost_sheet else None
    color = format == "text" and output is None and sys.stdout.isatty()
    _emit(render(_load(result), format, sheet, color=color), output)


def _load(path: Path) -> BenchmarkResult:
    """The result, completed from its journal if need be, which is then said on stderr."""
    result, recovered = load_result_noted(path)
    if recovered is not None:
        typer.echo(f"dbbench: {path}: result rebuilt from the journal: {recovered}", err=True)
    return result


def _inputs(
    paths: list[Path], sheets: list[Path]
) -> list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]]:
    local = [p for p in paths if not is_published_record(p)]
    if len(sheets) > len(local):
        raise ReportsError(
            f"{len(sheets)} cost sheets for {len(local)} local results: "
            "give at most one --cost-sheet per local result, in the same order"
        )
    # the n-th sheet goes with the n-th local result (the same file may come twice)
    loaded = [load_cost_sheet(s) for s in sheets]
    inputs: list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]] = []
    n = 0
    for p in paths:
        if is_published_record(p):
            inputs.append((label_for(p), load_published(p), None))
        else:
            inputs.append((label_for(p), _load(p), loaded[n] if n < len(loaded) else None))
            n += 1
    return inputs


def _split_hammerdb(paths: list[Path]) -> tuple[list[tuple[str, HammerDBResult]], list[Path]]:
    hdb: list[tuple[str, HammerDBResult]] = []
    others: list[Path] = []
    for p in paths:
        item = None if is_published_record(p) else load_any_result(p)
        if isinstance(item, HammerDBResult):
            hdb.append((label_for(p), item))
        else:
            others.append(p)
    return hdb, others


def compare_command(
    results: Annotated[
        list[Path],
        typer.Argument(help="Result files, run directories or published records (.toml)."),
    ],
    cost_sheet: Annotated[
        list[Path] | None,
        typer.Option("--cost-sheet", "-c", help="Cost sheet of the n-th local result (repeat)."),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"{choices_text(COMPARE_FORMATS)}.")
    ] = "text",
    sort: Annotated[str, typer.Option("--sort", help="qphh, price-performance or price.")] = "qphh",
    force: Annotated[
        bool, typer.Option("--force", help="Compare even when not comparable.")
    ] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE.")] = None,
) -> None:
    """Side-by-side performance landscape of results and published records."""
    # o2c results have a landscape of their own: alone, or as a section after the others
    o2c = [(label_for(p), load_o2c(p)) for p in results if is_o2c_result(p)]
    results = [p for p in results if not is_o2c_result(p)]
    if o2c and not results:
        _emit(render_o2c_landscape(o2c, format), output)
        return
    _check_format(format, COMPARE_FORMATS)
    o2c_section = (
        render_o2c_landscape(o2c, "html-section" if format == "html" else format) if o2c else ""
    )
    # HammerDB results (issue 11) get their own section of the landscape
    hdb, others = _split_hammerdb(results)
    if not others:
        _emit(
            _with_section(render_section(hdb, [], format), o2c_section, format),
            output,
        )
        return
    inputs = _inputs(others, cost_sheet or [])
    landscape = landscape_for(inputs, sort, force)
    text = render_landscape(landscape, format)
    tpch = [(label, item) for label, item, _ in inputs if isinstance(item, BenchmarkResult)]
    text = _with_section(text, render_section(hdb, tpch, format), format)
    _emit(_with_section(text, o2c_section, format), output)
    if output is not None or format != "text":
        for warning in landscape.warnings:
            typer.echo(f"dbbench: warning: {warning}", err=True)


def _with_section(text: str, section: str, format: str) -> str:
    """``text`` with ``section`` added at its end (inside the page's body for HTML)."""
    if not section:
        return text
    if not text:
        return section
    if format == "html" and "</body>" in text:
        return text.replace("</body>", section + "</body>", 1)
    return text.rstrip("\n") + "\n\n" + section


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``compare`` to the app."""
    app.command("report")(report)
    app.command("compare")(compare_command)
