"""A database of a test's own on the shared PostgreSQL and MariaDB servers.

Tests create one under a random name and drop it afterwards, so parallel test runs (and other
users of the servers) never collide. Imported by test modules as ``private_databases``
(``tests/`` is on ``sys.path`` through its conftest).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import psycopg
import pymysql


def _sibling(base_url: str, name: str) -> str:
    """``base_url`` with its database replaced by ``name``."""
    return base_url.rsplit("/", 1)[0] + "/" + name


@contextmanager
def fresh_postgres(base_url: str, prefix: str = "dbbench_test") -> Iterator[str]:
    """Yields the URL of a new, empty PostgreSQL database; dropped (forcibly) afterwards."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    try:
        yield _sibling(base_url, name)
    finally:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # type: ignore[arg-type]


@contextmanager
def fresh_mariadb(base_url: str, prefix: str = "dbbench_test") -> Iterator[str]:
    """Yields the URL of a new, empty MariaDB database; dropped afterwards."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    server = urlsplit(base_url)

    def run(sql: str) -> None:
        with pymysql.connect(
            host=server.hostname or "127.0.0.1",
            port=server.port or 3306,
            user=server.username or "root",
            password=server.password or "",
        ) as conn:
            conn.cursor().execute(sql)

    run(f"CREATE DATABASE {name}")
    try:
        yield _sibling(base_url, name)
    finally:
        run(f"DROP DATABASE IF EXISTS {name}")
