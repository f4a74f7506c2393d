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
from dbbench.reports.loading import load_result
from dbbench.reports.model import BenchmarkResult
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
    sheet = load_cost_sheet(cost_sheet) if cost_sheet else None
    color = format == "text" and output is None and sys.stdout.isatty()
    _emit(render(load_result(result), format, sheet, color=color), output)


def _inputs(
    paths: list[Path], sheets: list[Path]
) -> list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]]:
    local = [p for p in paths if not is_published_record(p)]
    if len(sheets) > len(local):
        raise ReportsError(
            f"{len(sheets)} cost sheets for {len(local)} local results: "
            "give at most one --cost-sheet per local result, in the same order"
        )
    by_path = dict(zip(local, [load_cost_sheet(s) for s in sheets], strict=False))
    inputs: list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]] = []
    for p in paths:
        if is_published_record(p):
            inputs.append((label_for(p), load_published(p), None))
        else:
            inputs.append((label_for(p), load_result(p), by_path.get(p)))
    return inputs


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
    if any(is_o2c_result(p) for p in results):  # o2c results: their own landscape
        labelled = [(label_for(p), load_o2c(p)) for p in results]
        _emit(render_o2c_landscape(labelled, format), output)
        return
    _check_format(format, COMPARE_FORMATS)
    landscape = landscape_for(_inputs(results, cost_sheet or []), sort, force)
    _emit(render_landscape(landscape, format), output)
    if output is not None or format != "text":
        for warning in landscape.warnings:
            typer.echo(f"dbbench: warning: {warning}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``compare`` to the app."""
    app.command("report")(report)
    app.command("compare")(compare_command)
