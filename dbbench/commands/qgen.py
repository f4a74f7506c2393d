"""``dbbench qgen``: a query stream's SQL text, with qgen's options and parameter log.

Parameters are identical to ``qgen -r SEED -s SF`` (queries.params). One difference from
qgen: QUERY arguments are always query numbers; with ``-p`` they are emitted in the
stream's Appendix-A order (qgen reads them as positions in the stream).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.queries.order import QUERY_NUMBERS, check_query, stream_order
from dbbench.queries.params import (
    default_parameters,
    parameter_log,
    qgen_seed,
    seed_from_time,
    stream_parameters,
)
from dbbench.queries.render import DIALECTS, render


def _selection(queries: list[int], stream: int | None) -> list[int]:
    """The queries to print, in stream order with ``-p``, else in the order given (1..22)."""
    chosen = [check_query(q) for q in queries] or list(QUERY_NUMBERS)
    if stream is None:
        return chosen
    return [q for q in stream_order(stream) if q in chosen]


def qgen(
    queries: Annotated[
        list[int] | None, typer.Argument(help="Query numbers (default: all 22).")
    ] = None,
    seed: Annotated[
        str | None,
        typer.Option("-r", "--seed", help="Seed, as qgen -r (default: now as mmddhhmmss)."),
    ] = None,
    stream: Annotated[
        int | None,
        typer.Option("-p", "--stream", help="Stream: its Appendix-A order and view name."),
    ] = None,
    sf: ScaleFactor = 1.0,
    defaults: Annotated[
        bool, typer.Option("-d", "--defaults", help="Validation defaults.")
    ] = False,
    dialect: Annotated[
        str, typer.Option("--dialect", help=f"SQL dialect: {', '.join(DIALECTS)}.")
    ] = "duckdb",
    log: Annotated[
        Path | None, typer.Option("-l", "--log", help="Append qgen's parameter log to FILE.")
    ] = None,
) -> None:
    """Print a query stream's SQL, parameters substituted, ready to run."""
    order = _selection(queries or [], stream)
    if defaults:
        params = default_parameters(sf)
        logged = default_parameters(sf, logged=True)
        header = "-- using default substitutions"
    else:
        value = qgen_seed(seed) if seed is not None else seed_from_time(datetime.now())
        params = logged = stream_parameters(value, sf)
        header = f"-- using {value} as a seed to the RNG"
    texts = [render(q, params[q], dialect=dialect, stream=stream or 0).script() for q in order]
    if log is not None:
        from dbbench.reports.safeio import open_append  # the one writer; only when logging

        with open_append(log) as out:
            out.write(parameter_log(logged, order))
    typer.echo(header)
    for q, text in zip(order, texts, strict=True):
        typer.echo(f"\n-- Q{q}\n{text}", nl=False)


def register(app: typer.Typer) -> None:
    """Add ``qgen`` to the app."""
    app.command("qgen", no_args_is_help=False)(qgen)
