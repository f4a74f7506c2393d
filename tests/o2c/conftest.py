"""A small TPC-H database (SF 0.01) per engine for the o2c tests, loaded through the kit's
own loader; every test that asks gets a private database of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from o2c_helpers import SF
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine


@pytest.fixture()
def tpch_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """URL of a freshly loaded SF 0.01 database on the engine the test is parametrized with."""
    kind = request.param
    if kind == "duckdb":
        path = tmp_path_factory.mktemp("o2c") / "tpch.duckdb"
        yield from _loaded(f"duckdb:///{path}")
    elif kind == "sqlite":
        path = tmp_path_factory.mktemp("o2c") / "tpch.sqlite"
        yield from _loaded(f"sqlite:///{path}")
    elif kind == "postgresql":
        base = request.getfixturevalue("pg_base_url")
        with fresh_postgres(base, "dbbench_o2c") as url:
            yield from _loaded(url)
    else:
        base = request.getfixturevalue("mariadb_base_url")
        with fresh_mariadb(base, "dbbench_o2c") as url:
            yield from _loaded(url)


def _loaded(url: str) -> Iterator[str]:
    engine = open_engine(url)
    try:
        load_database(engine, SF, jobs=1)
    finally:
        engine.close()
    yield url
