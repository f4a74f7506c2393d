"""``dbbench validate``: the 22 queries with the validation defaults, checked.

Against the official SF1 answers (the spec's qualification: an SF1 database, no refresh
function run, default parameters) or, with ``--against``, against a reference engine loaded
with the same data at any scale factor. The database is loaded when it is empty and reused
when dbbench loaded it at this scale factor; anything else is refused with one line.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from dbbench.commands.options import ScaleFactor
from dbbench.dbgen.api import row_count
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import STATE_NEXT_UPDATE_SET, Engine, QueryOutput, Session
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import parse_url, redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.queries.order import QUERY_NUMBERS
from dbbench.queries.params import default_parameters
from dbbench.queries.render import RenderedQuery, render
from dbbench.queries.validate import QueryVerdict, compare_answer, compare_results

OFFICIAL_SF = 1.0
EXACT_LINEITEM_SF = 10  # dbgen.api.row_count("lineitem") is exact up to SF 10


def run_rendered(session: Session, rendered: RenderedQuery) -> QueryOutput:
    """Setup, the answer statement (all rows fetched), teardown; teardown even on error."""
    try:
        for sql in rendered.setup:
            session.execute(sql)
        return session.query(rendered.query)
    finally:
        for sql in rendered.teardown:
            with contextlib.suppress(Exception):  # the query's own error is the one to report
                session.execute(sql)


def run_defaults(engine: Engine, sf: float) -> dict[int, QueryOutput | str]:
    """The 22 queries with the validation defaults: each one's rows, or its error in one line."""
    params = default_parameters(sf)
    results: dict[int, QueryOutput | str] = {}
    session = engine.session()
    try:
        for q in QUERY_NUMBERS:
            rendered = render(q, params[q], dialect=engine.dialect, stream=0)
            try:
                results[q] = run_rendered(session, rendered)
            except Exception as exc:  # recorded, and the other queries still run
                results[q] = " ".join(f"{type(exc).__name__}: {exc}".split())
    finally:
        session.close()
    return results


def _has_rows(engine: Engine) -> bool:
    """Whether any TPC-H table exists with data (a load would drop it)."""
    session = engine.session()
    try:
        for table in TABLES:
            try:
                if session.query(f"select count(*) from {table}").rows[0][0]:
                    return True
            except DriversError:  # no such table
                continue
        return False
    finally:
        session.close()


def _check_counts(engine: Engine, sf: float, label: str) -> None:
    """Every table holds exactly the rows of the scale factor (the spec validates on a fresh
    load; check_loaded alone tolerates the drift of refresh functions)."""
    counts = engine.row_counts()
    for table in TABLES:
        if table == "lineitem" and sf > EXACT_LINEITEM_SF:
            continue  # the generator's count is an estimate there
        want = row_count(table, sf)
        if counts[table] != want:
            raise DbbenchError(
                f"{label}: table {table} has {counts[table]} rows, not the {want} of SF {sf:g};"
                " the database is not at the scale factor it claims (use --reload)"
            )


def prepare(engine: Engine, sf: float, *, reload: bool, label: str) -> None:
    """Load an empty (or ``reload``) database; refuse one at another SF or after refreshes."""
    state = engine.read_state()
    if not reload and not state and _has_rows(engine):
        raise DbbenchError(
            f"{label} holds TPC-H tables that dbbench did not load; --reload replaces them"
        )
    if reload or not state:
        typer.echo(f"loading SF {sf:g} into {label} ...", err=True)
        load_database(engine, sf)
        return
    check_loaded(engine, sf)  # the recorded scale factor
    if state.get(STATE_NEXT_UPDATE_SET, "1") != "1":
        raise DbbenchError(
            f"{label}: refresh functions have run on this database; validation needs a fresh"
            " load (use --reload)"
        )
    _check_counts(engine, sf, label)


def verdicts(
    results: dict[int, QueryOutput | str], reference: dict[int, QueryOutput | str] | None
) -> list[QueryVerdict]:
    """Compare each query with the official answer, or with the reference engine's rows."""
    out = []
    for q, got in results.items():
        expected = None if reference is None else reference[q]
        if isinstance(got, str) or isinstance(expected, str):
            problem = got if isinstance(got, str) else f"reference engine: {expected}"
            out.append(QueryVerdict(q, False, 0, 0, problem))
        elif expected is None:
            out.append(compare_answer(q, got.rows))
        else:
            out.append(compare_results(q, expected.rows, got.rows))
    return out


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


def _open(url: str, sf: float, reload: bool) -> tuple[Engine, str]:
    label = redact(parse_url(url))
    engine = open_engine(url)
    try:
        prepare(engine, sf, reload=reload, label=label)
    except BaseException:
        engine.close()
        raise
    return engine, label


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
    db, label = _open(engine, sf, reload)
    try:
        results = run_defaults(db, sf)
    finally:
        db.close()
    reference = None
    title = f"{label}, SF {sf:g}, against the official answers"
    if against is not None:
        ref, ref_label = _open(against, sf, reload)
        try:
            reference = run_defaults(ref, sf)
        finally:
            ref.close()
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


def register(app: typer.Typer) -> None:
    """Add ``validate`` to the app."""
    app.command("validate")(validate)
