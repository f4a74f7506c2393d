"""``dbbench validate``: the 22 queries with the validation defaults, checked.

Against the official SF1 answers (the spec's qualification: an SF1 database, no refresh
function run, default parameters) or, with ``--against``, against a reference engine loaded
with the same data at any scale factor. The database is loaded when it is empty and reused
when dbbench loaded it at this scale factor; anything else is refused with one line.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from dbbench.commands.options import ScaleFactor
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.sequencer.defaults import prepare_for_validation, run_defaults, verdicts
from dbbench.drivers.url import parse_url, redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.queries.validate import (
    OFFICIAL_SF,
    AnswerSource,
    QueryVerdict,
    answer_set_scale,
    shipped_scale_factors,
)


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
    answers: Annotated[
        Path | None,
        typer.Option("--answers", help="An answer set `dbbench answers make` wrote (a folder)."),
    ] = None,
    reload: Annotated[bool, typer.Option("--reload", help="Load even if already loaded.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
) -> None:
    """Run the 22 queries with the default parameters and check every answer."""
    source = _answer_source(sf, against, answers)
    urls = [engine, *([against] if against is not None else [])]
    # both engines open (and locked) before any load; a bad reference URL loads nothing
    with open_run(urls, role="the reference engine") as scope:
        label = redact(parse_url(engine))
        prepare_for_validation(scope.engine, sf, reload=reload, label=label, loading=_say)
        results = run_defaults(scope.engine, sf)
        reference = None
        title = f"{label}, SF {sf:g}, against {_set_name(source)}"
        if against is not None:
            ref_label = redact(parse_url(against))
            prepare_for_validation(
                scope.engines[1], sf, reload=reload, label=ref_label, loading=_say
            )
            reference = run_defaults(scope.engines[1], sf)
            title = f"{label} against {ref_label}, SF {sf:g}"
    found = verdicts(results, reference, source)
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


def _answer_source(sf: float, against: str | None, answers: Path | None) -> AnswerSource:
    """The answer set to check against: a made one (``--answers``, at this SF), else the one
    shipped for ``sf``; with ``--against`` none is read. One line when there is none."""
    if answers is not None:
        if against is not None:
            raise DbbenchError("--answers and --against are two references: give one")
        made_at = answer_set_scale(answers)
        if made_at != sf:
            raise DbbenchError(f"{answers} is the answer set of SF {made_at:g}, not SF {sf:g}")
        return answers
    shipped = shipped_scale_factors()
    if against is None and sf not in shipped:
        listed = ", ".join(f"{s:g}" for s in shipped)
        raise DbbenchError(
            f"no answer set ships for SF {sf:g} (shipped: SF {listed}); use --against URL to"
            " compare with a reference engine, or --answers DIR (dbbench answers make)"
        )
    return sf


def _set_name(source: AnswerSource) -> str:
    if isinstance(source, Path):
        return f"the answer set in {source}"
    if source == OFFICIAL_SF:
        return "the official answers"
    return f"the shipped SF {source:g} answer set"


def _say(line: str) -> None:
    typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add ``validate`` to the app."""
    app.command("validate")(validate)
