"""The ``dbbench disclose`` command: the audit package of a saved TPC-H run (parse, gather
the generator's and the query package's facts for it, write, print)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from dbbench.reports import escape

if TYPE_CHECKING:
    from dbbench.reports.disclose.inputs import Inputs
    from dbbench.reports.tpch.model import BenchmarkResult

_TOKEN = re.compile(r"[0-9a-f]{1,32}")


def _view_token(result: BenchmarkResult, run_dir: Path) -> str:
    """The token of the run's Q15 view names: kept in the result, or (a run made before the
    result kept it) in the journal's first event; "" when neither has one."""
    from dbbench.reports.model import JOURNAL_FILE
    from dbbench.reports.tpch.model import DISCLOSURE_KEY

    facts = result.config.get(DISCLOSURE_KEY)
    token = facts.get("view_token") if isinstance(facts, dict) else None
    if token is None:
        try:
            with (run_dir / JOURNAL_FILE).open(encoding="utf-8") as journal:
                first = json.loads(journal.readline() or "{}")
        except (OSError, ValueError):
            first = {}
        token = first.get("view_token") if isinstance(first, dict) else None
    return token if isinstance(token, str) and _TOKEN.fullmatch(token) else ""


def _inputs(run: Path, cost_sheet: Path | None, acid: Path | None, sponsor: str) -> Inputs:
    from dbbench.dbgen.api import row_count
    from dbbench.dbgen.schema import TABLES
    from dbbench.queries.params import stream_parameters
    from dbbench.queries.render import render
    from dbbench.reports.acid.model import AcidResult
    from dbbench.reports.disclose.inputs import Inputs, QueryText
    from dbbench.reports.errors import ReportsError
    from dbbench.reports.families import read_result
    from dbbench.reports.loading import load_result
    from dbbench.reports.tpch.acid import attach
    from dbbench.reports.tpch.costsheet import load_cost_sheet

    result = load_result(run)
    inp = Inputs(result, run if run.is_dir() else run.parent, sponsor=sponsor)
    if cost_sheet is not None:
        inp.cost_sheet = load_cost_sheet(cost_sheet)
        inp.cost_sheet_text = cost_sheet.read_text("utf-8")
    if acid is not None:
        _, found, _ = read_result(acid)
        if not isinstance(found, AcidResult):
            raise ReportsError(f"{acid}: not an ACID result of dbbench acid")
        attach(result, found, str(acid))  # the same engine and configuration, or refused
        inp.acid, inp.acid_text = found, found.to_json()
    sf = result.scale_factor
    inp.expected_rows = {t: row_count(t, sf) for t in TABLES}
    dialect = result.engine.dialect or "ansi"
    token = _view_token(result, inp.run_dir)
    for r in result.runs:
        for stream, queries in sorted(r.params.items(), key=lambda kv: int(kv[0])):
            seed = r.seeds.get(stream)
            if seed is not None:
                again = stream_parameters(seed, sf)
                inp.regenerated[f"{r.number}/{stream}"] = {str(q): v for q, v in again.items()}
            for q, values in sorted(queries.items(), key=lambda kv: int(kv[0])):
                s, n = int(stream), int(q)
                suffix = f"_r{r.number}_{token}" if token else ""  # Q15's view as named
                as_run = render(n, values, dialect=dialect, stream=s, view_suffix=suffix)
                executed = as_run.script()
                qgen = render(n, values, dialect="ansi", stream=s).script()
                inp.texts.append(QueryText(r.number, s, n, tuple(values), executed, qgen))
    orders, lines = TABLES["orders"], TABLES["lineitem"]
    inp.refresh_sql = [
        "-- RF1: one update set's new rows, in one transaction (or --refresh-batch rows each)",
        f"INSERT INTO orders ({', '.join(c.name for c in orders.columns)}) VALUES (...);",
        f"INSERT INTO lineitem ({', '.join(c.name for c in lines.columns)}) VALUES (...);",
        "-- RF2: the set's old orders and their lines, by key",
        "DELETE FROM lineitem WHERE l_orderkey IN (...);",
        "DELETE FROM orders WHERE o_orderkey IN (...);",
    ]
    return inp


def disclose(
    run: Annotated[Path, typer.Argument(help="A run directory (or its result.json).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The package's folder.")],
    cost_sheet: Annotated[
        Path | None, typer.Option("--cost-sheet", help="TOML cost sheet: the priced system.")
    ] = None,
    acid: Annotated[
        Path | None, typer.Option("--acid", help="An ACID result of dbbench acid.")
    ] = None,
    sponsor: Annotated[
        str, typer.Option("--sponsor", help="The benchmark sponsor, as the package names it.")
    ] = "",
    pdf: Annotated[
        bool, typer.Option("--pdf/--no-pdf", help="Print the PDFs with headless Chromium.")
    ] = True,
) -> None:
    """Write the disclosure package of a TPC-H run: Executive Summary (HTML, PDF), Full
    Disclosure Report, auditor's checklist, Supporting Files Archive and its manifest."""
    from dbbench.reports.disclose.package import write_package
    from dbbench.reports.errors import ReportsError
    from dbbench.reports.safeio import OutputError

    inp = _inputs(run, cost_sheet, acid, sponsor.strip())
    try:
        written = write_package(inp, out, pdf=pdf)
    except OutputError as exc:
        raise ReportsError(str(exc)) from None
    typer.echo(
        escape.terminal(f"wrote {len(written)} files to {out} (verify: dbbench verify {out})")
    )


def register(app: typer.Typer) -> None:
    """Add ``disclose`` to the app."""
    app.command("disclose")(disclose)
