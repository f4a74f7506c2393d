"""The `dbbench engines` command: which engines exist, how to name them, what to install."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dbbench.drivers.hammerdb.install import find_hammerdb
from dbbench.drivers.registry import available_engines


def engines(
    as_json: bool = typer.Option(False, "--json", help="Print JSON for machines."),
    hammerdb: Annotated[
        Path | None, typer.Option("--hammerdb", help="HammerDB directory to check.")
    ] = None,
) -> None:
    """List the engines: URL form, whether the driver is installed, the install command."""
    rows = available_engines(abilities=as_json)
    if as_json:
        typer.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    table = Table(title="dbbench engines")
    for heading in ("engine", "URL", "driver", "install"):
        table.add_column(heading)
    for row in rows:
        status = "[green]installed[/]" if row.installed else "[red]missing[/]"
        table.add_row(escape(row.name), escape(row.url_form), status, escape(row.install))
    Console().print(table)
    # HammerDB, the external load driver (issue 11): usable or why not, with the install hint.
    Console().print(escape(find_hammerdb(hammerdb).describe()), soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("engines")(engines)
