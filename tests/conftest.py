"""Shared fixtures: the real database servers and small generated data.

PostgreSQL (127.0.0.1:5432) and MariaDB (127.0.0.1:3306) are used for real. On a machine
without them the tests that need them are skipped with a reason, unless
``DBBENCH_REQUIRE_SERVERS=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest
from sf1_database import duckdb_sf1_path  # noqa: F401  (a fixture for every test package)

# Every Spark JVM the tests start (the engine's own, the servers of tests/spark_servers.py)
# binds to loopback only.
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

PG_HOST, PG_PORT = "127.0.0.1", 5432
MARIADB_HOST, MARIADB_PORT = "127.0.0.1", 3306


def _require_servers() -> bool:
    return os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def _server_or_skip(name: str, host: str, port: int) -> None:
    if _reachable(host, port):
        return
    message = f"{name} is not reachable on {host}:{port}"
    if _require_servers():
        pytest.fail(f"{message} and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """URL of the PostgreSQL server's ``test`` database (trust auth)."""
    _server_or_skip("PostgreSQL", PG_HOST, PG_PORT)
    return f"postgresql://postgres@{PG_HOST}:{PG_PORT}/test"


@pytest.fixture(scope="session")
def mariadb_base_url() -> str:
    """SQLAlchemy URL of the MariaDB server (root, empty password), database ``test``."""
    _server_or_skip("MariaDB", MARIADB_HOST, MARIADB_PORT)
    return f"mysql+pymysql://root@{MARIADB_HOST}:{MARIADB_PORT}/test"


@pytest.fixture()
def tmp_cwd(tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    yield tmp_path
