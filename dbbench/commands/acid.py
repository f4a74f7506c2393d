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
    out: Annotated[Path, typer.Option("-o", "--out", help="Run directory.")] = Path("runs/acid"),
) -> None:
    """Run the ACID tests (atomicity, consistency, isolation) and write an acid result."""
    from dbbench.drivers.acid.workload import run_acid
    from dbbench.drivers.lifecycle import local_url
    from dbbench.reports.acid.render import render

    out.mkdir(parents=True, exist_ok=True)
    result = run_acid(local_url(engine, out), sf, out, streams=streams, per_stream=per_stream)
    typer.echo(render(result, "text"), nl=False)
    if result.verdict == "failed":
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    app.command("acid")(acid)
