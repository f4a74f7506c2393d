"""The ``dbbench report`` and ``dbbench compare`` commands: parse, dispatch on the result
family (reports.families), print or write."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from dbbench.commands.options import ForceCompare, OutputFile
from dbbench.reports.errors import ReportsError
from dbbench.reports.families import (
    CompareContext,
    Family,
    RenderOptions,
    compare,
    read_result,
    record_of,
)
from dbbench.reports.safeio import STDOUT, OutputError, same_file, write_text
from dbbench.reports.tpch.formats import COMPARE_FORMATS, REPORT_FORMATS, choices_text
from dbbench.reports.tpch.model import SCHEMA_NAME
from dbbench.reports.tpch.render_compare import label_for, unique_labels


def _emit(text: str, output: Path | None) -> None:
    if output is None or str(output) == STDOUT:
        typer.echo(text, nl=not text.endswith("\n"))
        return
    try:
        write_text(output, text)
    except OutputError as exc:
        raise ReportsError(str(exc)) from None
    typer.echo(f"wrote {output}", err=True)


def _refuse_own_input(output: Path | None, inputs: list[Path]) -> None:
    """A rendering must never replace a result it was made from (one line instead)."""
    if output is None:
        return
    for path in inputs:
        # a run directory's inputs: its result files and journals
        found = [*path.glob("*.json"), *path.glob("*.jsonl"), *path.glob("*.csv")]
        files = [path, *(found if path.is_dir() else [])]
        if any(same_file(output, f) for f in files):
            raise ReportsError(f"refusing to overwrite {output}: it is an input of this command")


def report(
    result: Annotated[Path, typer.Argument(help="A result JSON file or a run directory.")],
    cost_sheet: Annotated[
        Path | None,
        typer.Option("--cost-sheet", "-c", help="TOML cost sheet of the priced configuration."),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"{choices_text(REPORT_FORMATS)}.")
    ] = "text",
    output: OutputFile = None,
    acid: Annotated[
        Path | None,
        typer.Option("--acid", help="An ACID result (dbbench acid) of the same engine to show."),
    ] = None,
) -> None:
    """Rebuild the report of a saved result (no engine needed)."""
    _refuse_own_input(
        output, [result, *([cost_sheet] if cost_sheet else []), *([acid] if acid else [])]
    )
    family, loaded, recovered = read_result(result)
    if acid is not None:
        from dbbench.reports.loading import read_acid
        from dbbench.reports.tpch.acid import attach

        if family.name != SCHEMA_NAME:
            raise ReportsError(f"--acid goes with a TPC-H result; {result} is a {family.name}")
        attach(loaded, read_acid(acid), str(acid))
    if format not in family.formats():
        raise typer.BadParameter(f"{format!r} is not one of {', '.join(family.formats())}")
    color = format == "text" and output is None and sys.stdout.isatty()
    source = result if result.is_dir() else result.parent
    options = RenderOptions(cost_sheet=cost_sheet, color=color, source=source)
    rendered = family.render(loaded, format, options)
    if recovered is not None:  # said once the report exists: a failed one is its error alone
        typer.echo(f"dbbench: {result}: result rebuilt from the journal: {recovered}", err=True)
    _emit(rendered, output)


def _expanded(paths: list[Path]) -> list[Path]:
    """The inputs, a suite folder (``suite.json``) replaced by its entries' run directories
    in the index's order (repetitions ``-rN`` are pooled by the comparison)."""
    from dbbench.reports.studies.suite import INDEX_FILE, SuiteIndex

    out: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / INDEX_FILE).is_file():
            index = SuiteIndex.read(path)
            entries = sorted(
                index.entries, key=lambda e: (e.name != index.baseline, e.name, e.repetition)
            )
            found = [path / e.run_dir for e in entries if (path / e.run_dir).is_dir()]
            if not found:
                raise ReportsError(f"{path}: the suite has no entry with a run directory")
            out += found
        else:
            out.append(path)
    return out


def _read_input(path: Path, notes: list[str]) -> tuple[str, Family, Any]:
    """A labelled input of ``compare``: a result of any family, or a published TPC-H record
    (which joins the TPC-H results' landscape). ``notes``: what was rebuilt from a journal
    (said once the comparison exists)."""
    if (published := record_of(path)) is not None:
        family, kind = published
        return label_for(path), family, kind.load(path)
    family, result, recovered = read_result(path)
    if recovered is not None:
        notes.append(f"dbbench: {path}: result rebuilt from the journal: {recovered}")
    return label_for(path), family, result


def compare_command(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files, run directories, suite folders or published records (.toml); "
            "run directories named NAME-rN are pooled as repetitions of NAME."
        ),
    ],
    cost_sheet: Annotated[
        list[Path] | None,
        typer.Option("--cost-sheet", "-c", help="Cost sheet of the n-th local result (repeat)."),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help=f"{choices_text(COMPARE_FORMATS)}.")
    ] = "text",
    sort: Annotated[str, typer.Option("--sort", help="qphh, price-performance or price.")] = "qphh",
    force: ForceCompare = False,
    output: OutputFile = None,
) -> None:
    """Side-by-side comparison of results of any family and published records."""
    _refuse_own_input(output, [*results, *(cost_sheet or [])])
    results = _expanded(results)
    notes: list[str] = []
    read = [_read_input(p, notes) for p in results]
    labels = unique_labels([label for label, _, _ in read])
    items = [(label, fam, res) for label, (_, fam, res) in zip(labels, read, strict=True)]
    allowed = [f for f in COMPARE_FORMATS if all(f in fam.compare_formats for _, fam, _ in items)]
    if format not in allowed:
        raise typer.BadParameter(f"{format!r} is not one of {', '.join(allowed)}")
    context = CompareContext(cost_sheets=list(cost_sheet or []), sort=sort, force=force)
    context.sources = {
        label: p if p.is_dir() else p.parent for label, p in zip(labels, results, strict=True)
    }
    compared = compare(items, format, context)
    for note in notes:
        typer.echo(note, err=True)
    _emit(compared, output)
    if output is not None or format != "text":
        for warning in context.warnings:
            typer.echo(f"dbbench: warning: {warning}", err=True)


def register(app: typer.Typer) -> None:
    """Add ``report`` and ``compare`` to the app."""
    app.command("report")(report)
    app.command("compare")(compare_command)
