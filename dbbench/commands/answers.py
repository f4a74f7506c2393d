"""``dbbench answers make -s SF --engines A,B -o DIR``: an answer set of the 22 queries with
the validation parameters at any scale factor, made by two engines that must agree by value
(``drivers.sequencer.answer_sets``); ``dbbench validate -s SF`` checks against a shipped set,
``--answers DIR`` against a made one."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.drivers.sequencer.answer_sets import make_answer_set
from dbbench.reports import escape

app = typer.Typer(
    help="Answer sets of the 22 queries (validation parameters) beyond SF 1.",
    no_args_is_help=True,
)


def _say(line: str) -> None:
    typer.echo(escape.terminal(line), err=True)


@app.command("make")
def make(
    engines: Annotated[
        str, typer.Option("--engines", help="Two engine URLs, comma-separated (duckdb,chdb).")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder of the answer set.")],
    sf: ScaleFactor = 1.0,
    work: Annotated[
        Path | None,
        typer.Option("--work", help="Folder for the engines' scratch data (default: temp)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace a set in the folder.")] = False,
) -> None:
    """Load SF into two engines, run the 22 queries, require agreement, write the set."""
    urls = [part.strip() for part in engines.split(",") if part.strip()]
    made = make_answer_set(sf, urls, output, work_dir=work, force=force, say=_say)
    took = ", ".join(
        f"{r.version} (load {r.load_seconds:.0f} s, queries {r.query_seconds:.0f} s)"
        for r in made.engines
    )
    typer.echo(
        escape.terminal(
            f"answer set SF {sf:g} written to {made.path}: the two engines agree on all 22"
            f" queries; {took}; {made.seconds:.0f} s in all"
        )
    )


def register(root: typer.Typer) -> None:
    """Add ``answers`` (``answers make``) to the app."""
    root.add_typer(app, name="answers")
