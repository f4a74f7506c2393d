"""Engines loaded with small data for the query tests, and the cached SF1 DuckDB database.

Each server test gets a private database (dropped at the end), so test runs and other suites
sharing the server's ``test`` database never see each other's tables.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbbench.drivers.engine import STATE_NEXT_UPDATE_SET, Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.registry import open_engine
from dbbench.reports.model import kit_version

SMALL_SF = 0.01
PRIVATE_DB = f"dbbench_queries_{os.getpid()}"


def _postgres_db(base_url: str) -> Iterator[str]:
    import psycopg

    admin = base_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"drop database if exists {PRIVATE_DB}")
        conn.execute(f"create database {PRIVATE_DB}")
    yield base_url.rsplit("/", 1)[0] + f"/{PRIVATE_DB}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"drop database if exists {PRIVATE_DB} with (force)")


def _mariadb_db(base_url: str) -> Iterator[str]:
    import pymysql

    def run(sql: str) -> None:
        conn = pymysql.connect(host="127.0.0.1", port=3306, user="root", password="")
        try:
            conn.cursor().execute(sql)
        finally:
            conn.close()

    run(f"drop database if exists {PRIVATE_DB}")
    run(f"create database {PRIVATE_DB}")
    yield base_url.rsplit("/", 1)[0] + f"/{PRIVATE_DB}"
    run(f"drop database if exists {PRIVATE_DB}")


@pytest.fixture(scope="session")
def duckdb_small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The reference engine of the cross-engine checks: DuckDB with SF 0.01."""
    engine = open_engine(f"duckdb:///{tmp_path_factory.mktemp('duckdb') / 'sf001.duckdb'}")
    load_database(engine, SMALL_SF, jobs=1)
    yield engine
    engine.close()


@pytest.fixture(
    scope="session",
    params=[
        pytest.param("postgresql", marks=pytest.mark.postgresql),
        pytest.param("mysql", marks=pytest.mark.mariadb),
        "sqlite",
    ],
)
def other_small(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """PostgreSQL, MariaDB (SQLAlchemy + pymysql) and SQLite, each with SF 0.01."""
    name: str = request.param
    databases: Iterator[str]
    if name == "postgresql":
        databases = _postgres_db(request.getfixturevalue("pg_base_url"))
    elif name == "mysql":
        databases = _mariadb_db(request.getfixturevalue("mariadb_base_url"))
    else:
        databases = iter([f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'sf001.db'}"])
    engine = open_engine(next(databases))
    try:
        load_database(engine, SMALL_SF, jobs=1)
        yield engine
    finally:
        engine.close()
        next(databases, None)  # drop the private database


def _cache_dir() -> Path:
    root = os.environ.get("DBBENCH_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dbbench-tests"
    )
    return Path(root)


def _usable(path: Path) -> bool:
    """A cached SF1 file is reused only when it is complete and no refresh ran on it."""
    if not path.exists():
        return False
    engine = open_engine(f"duckdb:///{path}")
    try:
        check_loaded(engine, 1.0)
        return engine.read_state().get(STATE_NEXT_UPDATE_SET) == "1"
    except DriversError:
        return False
    finally:
        engine.close()


def _source_key() -> str:
    """A digest of every source file that decides what the cached database holds.

    Keyed by the code rather than the kit version, so a change to the generator, the DDL or
    the loader rebuilds the database instead of validating against stale data."""
    root = Path(__file__).resolve().parents[2]
    files = sorted([*root.joinpath("dbgen").rglob("*.py"), *root.joinpath("drivers").rglob("*.py")])
    digest = hashlib.sha1(kit_version().encode())
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def duckdb_sf1_path() -> Path:
    """SF1 in a DuckDB file, built once per version of the code under the test cache dir."""
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"tpch-sf1-{_source_key()}.duckdb"
    if _usable(path):
        return path
    building = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    building.unlink(missing_ok=True)
    engine = open_engine(f"duckdb:///{building}")
    try:
        load_database(engine, 1.0)
    finally:
        engine.close()
    os.replace(building, path)
    for stale in cache.glob("tpch-sf1-*.duckdb"):  # databases of older code: ~300 MB each
        if stale != path:
            stale.unlink(missing_ok=True)
    return path
