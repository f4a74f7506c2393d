"""``dbbench preflight``: the configuration warnings of an engine, without running anything.

The same lines are printed at the start of ``run`` and of every suite entry, and listed in
the run's report (:mod:`reports.tpch.fairness`). The rules are the engine's own facts
(``EngineFacts.preflight``, ``bytes_per_sf``), passed to the reports as plain data.
"""

from __future__ import annotations

from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.reports.tpch.fairness import PreflightFacts, preflight, preflight_result
from dbbench.reports.tpch.model import BenchmarkResult


def warn_unfair(result: BenchmarkResult) -> list[str]:
    """Print the preflight lines of a benchmark about to run (from the facts its engine
    recorded in it); return them."""
    lines = preflight_result(result)
    for line in lines:
        typer.echo(f"dbbench: warning: {line}", err=True)
    return lines


def preflight_command(
    engine: Annotated[str, typer.Option("--engine", "-e", help="Engine URL.")] = "duckdb",
    scale_factor: ScaleFactor = 1.0,
) -> None:
    """Warn where an engine is configured to measure the disk instead of itself."""
    sf = scale_factor
    db = open_engine(engine)
    try:
        info = engine_info(db, engine)
    finally:
        db.close()
    facts = PreflightFacts.from_data(db.facts.preflight_facts())
    lines = preflight(info, sf, system_info().memory_bytes, facts)
    for line in lines:
        typer.echo(f"warning: {line}")
    if not lines:
        typer.echo(f"{info.name}: no configuration warning for SF {sf:g}")


def register(app: typer.Typer) -> None:
    """Add ``preflight`` to the app."""
    app.command("preflight")(preflight_command)
