"""``dbbench validate``: the 22 queries with the validation defaults, checked.

Against the official SF1 answers (the spec's qualification: an SF1 database, no refresh
function run, default parameters) or, with ``--against``, against a reference engine loaded
with the same data at any scale factor. The database is loaded when it is empty and reused
when dbbench loaded it at this scale factor; anything else is refused with one line.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from dbbench.commands.options import ScaleFactor
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.sequencer.defaults import prepare_for_validation, run_defaults, verdicts
from dbbench.drivers.url import parse_url, redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.queries.validate import QueryVerdict

OFFICIAL_SF = 1.0


def _table(found: list[QueryVerdict], title: str) -> Table:
    table = Table(title=title)
    for name in ("query", "result", "rows", "expected", "first mismatch"):
        table.add_column(name, justify="right" if name in ("query", "rows", "expected") else "left")
    for v in found:
        table.add_row(
            f"Q{v.query}",
            "pass" if v.passed else "FAIL",
            str(v.rows_got),
            str(v.rows_expected),
            v.first_mismatch or "",
            style=None if v.passed else "red",
        )
    return table


def validate(
    engine: Annotated[str, typer.Option("--engine", "-e", help="Engine URL to validate.")],
    sf: ScaleFactor = 1.0,
    against: Annotated[
        str | None, typer.Option("--against", help="Reference engine URL (any scale factor).")
    ] = None,
    reload: Annotated[bool, typer.Option("--reload", help="Load even if already loaded.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
) -> None:
    """Run the 22 queries with the default parameters and check every answer."""
    if against is None and sf != OFFICIAL_SF:
        raise DbbenchError(
            f"official answers exist only for SF 1, not {sf:g}; use --against URL to compare"
            " with a reference engine"
        )
    urls = [engine, *([against] if against is not None else [])]
    # both engines open (and locked) before any load; a bad reference URL loads nothing
    with open_run(urls, role="the reference engine") as scope:
        label = redact(parse_url(engine))
        prepare_for_validation(scope.engine, sf, reload=reload, label=label, loading=_say)
        results = run_defaults(scope.engine, sf)
        reference = None
        title = f"{label}, SF {sf:g}, against the official answers"
        if against is not None:
            ref_label = redact(parse_url(against))
            prepare_for_validation(
                scope.engines[1], sf, reload=reload, label=ref_label, loading=_say
            )
            reference = run_defaults(scope.engines[1], sf)
            title = f"{label} against {ref_label}, SF {sf:g}"
    found = verdicts(results, reference)
    failed = [f"Q{v.query}" for v in found if not v.passed]
    if as_json:
        document = {"title": title, "passed": not failed, "queries": [asdict(v) for v in found]}
        typer.echo(json.dumps(document, indent=1))
    else:
        Console(soft_wrap=True).print(_table(found, title))
    if failed:
        typer.echo(f"dbbench: validation failed: {', '.join(failed)}", err=True)
        raise typer.Exit(ExitCode.INVALID_RUN)
    if not as_json:
        typer.echo(f"all 22 queries pass ({title})")


def _say(line: str) -> None:
    typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add ``validate`` to the app."""
    app.command("validate")(validate)
