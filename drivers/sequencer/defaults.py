"""The 22 queries with the validation defaults (clause 2.4.x's substitution parameters) on
one session: what ``dbbench validate`` checks against the official answers or a reference
engine, and what the engine suites and benchmarks compare.

:func:`prepare_for_validation` readies a database for them (loaded when empty, reused when
dbbench loaded it at this scale factor and no refresh function ran, refused otherwise) and
:func:`verdicts` compares their rows with the official answers or a reference engine's.
"""

from __future__ import annotations

from collections.abc import Callable

from dbbench.dbgen.api import row_count
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import STATE_NEXT_UPDATE_SET, Engine, QueryOutput
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.sequencer.streams import run_rendered
from dbbench.queries.order import QUERY_NUMBERS
from dbbench.queries.params import default_parameters
from dbbench.queries.render import render
from dbbench.queries.validate import (
    OFFICIAL_SF,
    AnswerSource,
    QueryVerdict,
    compare_answer,
    compare_results,
)

EXACT_LINEITEM_SF = 10  # dbgen.api.row_count("lineitem") is exact up to SF 10


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


def prepare_for_validation(
    engine: Engine,
    sf: float,
    *,
    reload: bool,
    label: str,
    loading: Callable[[str], None] = lambda line: None,
) -> None:
    """Load an empty (or ``reload``) database, saying so through ``loading``; refuse one at
    another SF, after refresh functions, or holding TPC-H tables dbbench did not load."""
    state = engine.read_state()
    if not reload and not state and _has_rows(engine):
        raise DriversError(
            f"{label} holds TPC-H tables that dbbench did not load; --reload replaces them"
        )
    if reload or not state:
        loading(f"loading SF {sf:g} into {label} ...")
        load_database(engine, sf)
        return
    check_loaded(engine, sf)  # the recorded scale factor
    if state.get(STATE_NEXT_UPDATE_SET, "1") != "1":
        raise DriversError(
            f"{label}: refresh functions have run on this database; validation needs a fresh"
            " load (use --reload)"
        )
    _check_counts(engine, sf, label)


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
            raise DriversError(
                f"{label}: table {table} has {counts[table]} rows, not the {want} of SF {sf:g};"
                " the database is not at the scale factor it claims (use --reload)"
            )


def verdicts(
    results: dict[int, QueryOutput | str],
    reference: dict[int, QueryOutput | str] | None,
    answers: AnswerSource = OFFICIAL_SF,
) -> list[QueryVerdict]:
    """Compare each query with the reference engine's rows or, without one, with an answer
    set's (``answers``: the shipped set of a scale factor, default the official SF1 one, or
    a folder ``dbbench answers make`` wrote)."""
    out = []
    for q, got in results.items():
        expected = None if reference is None else reference[q]
        if isinstance(got, str) or isinstance(expected, str):
            problem = got if isinstance(got, str) else f"reference engine: {expected}"
            out.append(QueryVerdict(q, False, 0, 0, problem))
        elif expected is None:
            out.append(compare_answer(q, got.rows, answers))
        else:
            out.append(compare_results(q, expected.rows, got.rows))
    return out
