"""The loader's data path: worker processes, part order, progress, reuse checks."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.spool import remove_stale_spools, spool_root
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


class RecordingSink:
    """A progress sink that keeps what the loader told it (from several threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: list[tuple[int, int]] = []
        self.rows = 0
        self.advances = 0
        self.done: list[str] = []
        self.finished = 0

    def start(self, total_rows: int, outputs: int) -> None:
        self.started.append((total_rows, outputs))

    def advance(self, rows: int, nbytes: int) -> None:
        with self.lock:
            self.rows += rows
            self.advances += 1

    def output_done(self, name: str) -> None:
        with self.lock:
            self.done.append(name)

    def finish(self) -> None:
        self.finished += 1


def _load_through_workers(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "PROCESS_MIN_ROWS", 0)
    monkeypatch.setattr(loader, "ROWS_PER_PART", 4000)
    sink = RecordingSink()
    total = sum(api.row_count(t, SF) for t in TABLES)

    engine = open_engine(url)
    try:
        stats = load_database(engine, SF, jobs=2, progress=sink)
        assert engine.row_counts() == {t: api.row_count(t, SF) for t in TABLES}
        assert stats.rows == engine.row_counts()
        if url == "duckdb":  # the same rows as generating in one thread
            assert engine.session().query(CHECKSUM).rows[0] == _inline_checksum()
    finally:
        engine.close()
    spools = os.listdir(spool_root(loader.SPOOL_MIN_BYTES) or tempfile.gettempdir())
    assert not [n for n in spools if n.startswith(f"{loader.SPOOL_PREFIX}{os.getpid()}-")]
    assert sink.started == [(total, len(TABLES))]
    assert sink.rows == total and sink.advances > len(TABLES)  # batch by batch
    assert sorted(sink.done) == sorted(TABLES)
    assert sink.finished == 1


def test_spools_of_dead_loads_are_removed(tmp_path: Path) -> None:
    """A load killed outright leaves its spool behind; the next load removes it (in shared
    memory it would hold memory until a reboot), but never a live process's spool."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"{loader.SPOOL_PREFIX}{dead.pid}-abc"
    live = tmp_path / f"{loader.SPOOL_PREFIX}{os.getpid()}-def"
    other = tmp_path / "unrelated"
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "orders-1-0.arrow").write_bytes(b"x")
    remove_stale_spools(loader.SPOOL_PREFIX, str(tmp_path))
    assert not stale.exists() and live.exists() and other.exists()


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


class FailingSource:
    def row_count(self, table, sf):
        return api.row_count(table, sf)

    def table_batches(self, table, sf, *, part=1, parts=1):
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
    source = importlib.import_module("failing_source").FailingSource()
    if workers:
        monkeypatch.setattr(loader, "PROCESS_MIN_ROWS", 0)
    with _database(kind, request) as url:
        engine = open_engine(url)
        try:
            with pytest.raises(DbgenError, match="ran out of luck") as info:
                load_database(engine, SF, jobs=2, source=source)
            assert "\n" not in str(info.value)
        finally:
            engine.close()
