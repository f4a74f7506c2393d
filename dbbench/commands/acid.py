"""The `dbbench acid` command: TPC-H clause 3's ACID tests on one engine (parse and print)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor


def acid(
    engine: Annotated[str, typer.Option("-e", "--engine", help="Engine URL.")] = "duckdb",
    sf: ScaleFactor = 1.0,
    streams: Annotated[int, typer.Option("--streams", min=1, help="S: S + 1 streams run.")] = 2,
    per_stream: Annotated[
        int, typer.Option("--transactions", min=1, help="ACID Transactions per stream.")
    ] = 100,
    kill: Annotated[
        str,
        typer.Option(
            "--kill",
            help="Durability on a server: the command that kills it without a clean shutdown.",
        ),
    ] = "",
    restart: Annotated[
        str, typer.Option("--restart", help="Durability on a server: the command that starts it.")
    ] = "",
    out: Annotated[Path, typer.Option("-o", "--out", help="Run directory.")] = Path("runs/acid"),
) -> None:
    """Run the ACID tests (atomicity, consistency, isolation 1-6, durability) and write an
    acid result. Exit 3 when a test failed; a result that says "incomplete" (durability not
    run: an in-memory database, a server without --kill/--restart) exits 0."""
    from dbbench.drivers.acid.workload import choose_failure, run_acid
    from dbbench.drivers.lifecycle import local_url
    from dbbench.reports.acid.render import render

    url = local_url(engine, out)
    choose_failure(url, kill, restart)  # a half-given pair: refused before anything runs
    out.mkdir(parents=True, exist_ok=True)
    result = run_acid(
        url, sf, out, streams=streams, per_stream=per_stream, kill=kill, restart=restart,
        progress=lambda line: typer.echo(f"acid: {line}", err=True),
    )  # fmt: skip
    typer.echo(render(result, "text"), nl=False)
    if result.verdict == "failed":
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    app.command("acid")(acid)
