"""On embedded DuckDB all 22 queries match the official SF1 answers. (Every engine's
agreement with DuckDB at SF 0.01 is part of the shared engine suite, ``tests/engines``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from dbbench.drivers.engine import QueryOutput
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer.defaults import run_defaults
from dbbench.queries.validate import compare_answer


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
