"""Every query in every engine dialect runs on its real engine and agrees with DuckDB;
on embedded DuckDB all 22 queries match the official SF1 answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbbench.commands.validate import run_defaults, run_rendered
from dbbench.drivers.engine import Engine, QueryOutput
from dbbench.drivers.registry import open_engine
from dbbench.queries.params import default_parameters, stream_parameters
from dbbench.queries.render import render
from dbbench.queries.validate import compare_answer, compare_results

SMALL_SF = 0.01
#: The validation defaults, and a random stream (its Q15 view is named revenue5).
PARAMETER_SETS = {
    "defaults": (default_parameters(SMALL_SF), 0),
    "seed101000000": (stream_parameters(101000000, SMALL_SF), 5),
}
_cache: dict[tuple[int, str, int], list[tuple[Any, ...]]] = {}


def run(engine: Engine, query: int, which: str) -> list[tuple[Any, ...]]:
    params, stream = PARAMETER_SETS[which]
    rendered = render(query, params[query], dialect=engine.dialect, stream=stream)
    session = engine.session()
    try:
        return run_rendered(session, rendered).rows
    finally:
        session.close()


def reference(engine: Engine, query: int, which: str) -> list[tuple[Any, ...]]:
    key = (id(engine), which, query)
    if key not in _cache:
        _cache[key] = run(engine, query, which)
    return _cache[key]


@pytest.mark.parametrize("which", PARAMETER_SETS)
@pytest.mark.parametrize("query", range(1, 23))
def test_engine_agrees_with_duckdb(
    other_small: Engine, duckdb_small: Engine, query: int, which: str
) -> None:
    expected = reference(duckdb_small, query, which)
    got = run(other_small, query, which)
    verdict = compare_results(query, expected, got)
    assert verdict.passed, f"{other_small.dialect} Q{query}: {verdict.first_mismatch}"


def test_small_results_are_not_trivial(duckdb_small: Engine) -> None:
    """The comparison above means something only if the queries return rows."""
    rows = {q: len(reference(duckdb_small, q, "defaults")) for q in range(1, 23)}
    assert all(n > 0 for n in rows.values()), rows
    assert rows[9] > 100 and rows[16] > 100 and rows[13] > 10


def test_cross_engine_check_catches_a_changed_row(
    other_small: Engine, duckdb_small: Engine
) -> None:
    session = other_small.session()
    try:
        session.execute("update region set r_name = 'ATLANTIS' where r_regionkey = 3")
        got = run(other_small, 5, "defaults")  # Q5 for ASIA: unaffected
        changed = run(other_small, 2, "defaults")  # Q2 for EUROPE: now empty
    finally:
        session.execute("update region set r_name = 'EUROPE' where r_regionkey = 3")
        session.close()
    assert compare_results(5, reference(duckdb_small, 5, "defaults"), got).passed
    verdict = compare_results(2, reference(duckdb_small, 2, "defaults"), changed)
    assert not verdict.passed and verdict.rows_got == 0


@pytest.fixture(scope="module")
def sf1_results(duckdb_sf1_path: Path) -> dict[int, QueryOutput | str]:
    engine = open_engine(f"duckdb:///{duckdb_sf1_path}")
    try:
        return run_defaults(engine, 1.0)
    finally:
        engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("query", range(1, 23))
def test_duckdb_sf1_matches_official_answers(
    sf1_results: dict[int, QueryOutput | str], query: int
) -> None:
    result = sf1_results[query]
    assert not isinstance(result, str), result
    verdict = compare_answer(query, result.rows)
    assert verdict.passed, f"Q{query}: {verdict.first_mismatch}"
