"""The work-process pool is sized from the server: never more connections than it takes."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pymysql
import pytest

from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c.capacity import SPARE, free_connections, work_processes
from dbbench.drivers.registry import open_engine


def _pg_free(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT current_setting('max_connections')::int"
            " - current_setting('superuser_reserved_connections')::int"
            " - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')"
        ).fetchone()
    assert row is not None
    return int(row[0]) + 1  # this counting connection is closed again


def test_postgresql_pool_is_capped_by_free_connections(pg_base_url: str) -> None:
    engine = open_engine(pg_base_url)
    try:
        free, why = free_connections(engine)
        assert free is not None and "max_connections" in why
        # other tests use the server too: the two readings agree within their churn
        assert abs(free - _pg_free(pg_base_url)) <= 5
        default = max(4, 2 * (os.cpu_count() or 1))
        assert work_processes(engine, 3, None) == 3  # never more than the users
        assert work_processes(engine, 10_000, None) == min(default, free - SPARE)
        assert work_processes(engine, 10_000, 2) == 2
        with pytest.raises(DriversError, match=r"--work-processes 100000: the server takes only"):
            work_processes(engine, 200_000, 100_000)
    finally:
        engine.close()


def test_mariadb_pool_is_capped_by_free_connections(mariadb_base_url: str) -> None:
    engine = open_engine(mariadb_base_url)
    try:
        free, _ = free_connections(engine)
        with pymysql.connect(host="127.0.0.1", user="root") as conn, conn.cursor() as cur:
            cur.execute("SELECT @@max_connections")
            maximum = int(cur.fetchone()[0])  # type: ignore[index]
        assert free is not None and 0 < free <= maximum
        with pytest.raises(DriversError, match="the server takes only"):
            work_processes(engine, 10 * maximum, 10 * maximum)
    finally:
        engine.close()


def test_embedded_engine_uses_the_cpu_rule(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path / 'x.duckdb'}")
    try:
        assert free_connections(engine) == (None, "")
        assert work_processes(engine, 10_000, None) == max(4, 2 * (os.cpu_count() or 1))
        assert work_processes(engine, 10_000, 500) == 500  # nothing to cap it
    finally:
        engine.close()
