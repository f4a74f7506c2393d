"""The loader's data path: worker processes, part order, progress, reuse checks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.schema import TABLES
from dbbench.drivers import loader
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.registry import open_engine

SF = 0.01
CHECKSUM = (
    "SELECT COUNT(*), SUM(l_orderkey * 7 + l_linenumber), SUM(l_extendedprice), "
    "MIN(l_comment), MAX(l_shipdate) FROM lineitem"
)


def _inline_checksum() -> tuple[object, ...]:
    """The same data generated in the loading thread, without worker processes."""
    engine = open_engine("duckdb")
    try:
        load_database(engine, SF, jobs=1)
        return engine.session().query(CHECKSUM).rows[0]
    finally:
        engine.close()


@contextmanager
def _database(kind: str, request: pytest.FixtureRequest) -> Iterator[str]:
    if kind == "mysql":
        with fresh_mariadb(request.getfixturevalue("mariadb_base_url")) as url:
            yield url
    elif kind == "postgresql":
        with fresh_postgres(request.getfixturevalue("pg_base_url")) as url:
            yield url
    else:
        yield kind


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "kind",
    [
        "duckdb",
        "sqlite://",
        pytest.param("postgresql", marks=pytest.mark.postgresql),
        pytest.param("mysql", marks=pytest.mark.mariadb),
    ],
)
def test_worker_processes_deliver_every_part(
    kind: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Small parts force many of them through worker processes; DuckDB and SQLite load one
    table at a time, PostgreSQL and MariaDB all at once: the dispatch must not deadlock
    either way."""
    with _database(kind, request) as url:
        _load_through_workers(url, monkeypatch)


def _load_through_workers(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "PROCESS_MIN_ROWS", 0)
    monkeypatch.setattr(loader, "ROWS_PER_PART", 4000)
    seen: dict[str, list[int]] = {}

    def progress(table: str, done: int, total: int) -> None:
        seen.setdefault(table, []).append(done)
        assert total == api.row_count(table, SF)

    engine = open_engine(url)
    try:
        stats = load_database(engine, SF, jobs=2, progress=progress)
        assert engine.row_counts() == {t: api.row_count(t, SF) for t in TABLES}
        assert stats.rows == engine.row_counts()
        if url == "duckdb":  # the same rows as generating in one thread
            assert engine.session().query(CHECKSUM).rows[0] == _inline_checksum()
    finally:
        engine.close()
    for table, dones in seen.items():
        assert dones == sorted(dones)
        assert dones[-1] == api.row_count(table, SF)
    assert set(seen) == set(TABLES)


def test_check_loaded_refuses_foreign_or_damaged_databases(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path}/x.db")
    try:
        with pytest.raises(DriversError, match="not loaded by dbbench"):
            check_loaded(engine, SF)
        load_database(engine, SF)
        check_loaded(engine, SF)
        engine.session().execute("DELETE FROM nation WHERE n_nationkey = 3")
        with pytest.raises(DriversError, match="table nation has 24 rows, expected 25"):
            check_loaded(engine, SF)
    finally:
        engine.close()


def test_load_replaces_an_earlier_load(tmp_path: Path) -> None:
    """Loading twice drops the first copy: counts are not doubled, the state is fresh."""
    engine = open_engine(f"sqlite:///{tmp_path}/x.db")
    try:
        load_database(engine, SF)
        engine.write_state({"next_update_set": "5"})
        load_database(engine, SF)
        assert engine.row_counts()["lineitem"] == api.row_count("lineitem", SF)
        assert engine.read_state()["next_update_set"] == "1"
    finally:
        engine.close()


def test_bad_scale_factor_is_a_one_line_error() -> None:
    engine = open_engine("duckdb")
    try:
        with pytest.raises(Exception, match="scale factor") as info:
            load_database(engine, -1)
        assert "\n" not in str(info.value)
    finally:
        engine.close()


FAILING_SOURCE = """
from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError

row_count = api.row_count


def table_batches(table, sf, *, part=1, parts=1):
    batches = api.table_batches(table, sf, part=part, parts=parts)
    yield next(batches)
    raise DbgenError("the generator ran out of luck")
"""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("kind", "workers"),
    [
        ("duckdb", False),
        ("duckdb", True),
        ("sqlite://", False),
        pytest.param("postgresql", True, marks=pytest.mark.postgresql),
    ],
)
def test_generator_errors_surface_as_themselves(
    kind: str,
    workers: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """A generator failure mid-table is the generator's one-line error, not the engine's
    wrapping of it (nor the "stopped" of the tables loading beside it), whether it happened
    inline or in a worker process."""
    (tmp_path / "failing_source.py").write_text(FAILING_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    if workers:
        monkeypatch.setattr(loader, "PROCESS_MIN_ROWS", 0)
    with _database(kind, request) as url:
        engine = open_engine(url)
        try:
            with pytest.raises(DbgenError, match="ran out of luck") as info:
                load_database(engine, SF, jobs=2, source="failing_source")
            assert "\n" not in str(info.value)
        finally:
            engine.close()
