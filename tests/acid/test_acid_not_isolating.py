"""A deliberately non-isolating configuration is caught by the right isolation test, with a
message naming the step: a real DuckDB whose sessions run every statement in autocommit (a
test-only wrapper that drops BEGIN, COMMIT and ROLLBACK: tests 1 and 3), MariaDB sessions at
READ UNCOMMITTED (a dirty read, test 1) and ACID Transactions whose reads do not lock at
REPEATABLE READ (a lost update, test 3)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dbbench.drivers.acid.checks import Checks
from dbbench.drivers.acid.transaction import HISTORY_DDL
from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine


class Autocommit:
    """A real engine's session with no transaction: BEGIN, COMMIT and ROLLBACK are dropped,
    so each statement commits by itself (DuckDB's autocommit)."""

    def __init__(self, inner: Session) -> None:
        self.inner = inner

    def execute(self, sql: str) -> None:
        if sql.split()[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            self.inner.execute(sql)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture(scope="module")
def duckdb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path = tmp_path_factory.mktemp("autocommit") / "acid.duckdb"
    engine = open_engine(f"duckdb:///{path}")
    try:
        load_database(engine, 0.01)
        admin = engine.session()
        admin.execute(HISTORY_DDL)
        admin.close()
        yield engine
    finally:
        engine.close()


def _autocommit(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = engine.session
    monkeypatch.setattr(engine, "session", lambda: Autocommit(opened()))


def test_autocommit_fails_isolation_1_naming_the_step(
    duckdb: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Checks(duckdb, _orders(duckdb)).isolation(1).verdict == "passed"  # the real engine
    _autocommit(duckdb, monkeypatch)
    check = Checks(duckdb, _orders(duckdb)).isolation(1)
    assert check.verdict == "failed"
    assert check.message.startswith("step txn2 (ACID Query while txn1 is open) read ")
    assert "uncommitted update is visible" in check.message


def test_autocommit_fails_isolation_3_naming_the_step(
    duckdb: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Checks(duckdb, _orders(duckdb)).isolation(3).verdict == "passed"
    _autocommit(duckdb, monkeypatch)
    check = Checks(duckdb, _orders(duckdb)).isolation(3)
    assert check.verdict == "failed"
    assert check.message == (
        "step txn2 (ACID Transaction while txn1 is open) committed without waiting or aborting"
    )


@pytest.fixture(scope="module")
def mariadb(mariadb_base_url: str) -> Iterator[Engine]:
    from private_databases import fresh_mariadb

    with fresh_mariadb(mariadb_base_url, "dbbench_acid_iso") as url:
        engine = open_engine(url)
        try:
            load_database(engine, 0.01)
            admin = engine.session()
            admin.execute(HISTORY_DDL)
            admin.close()
            yield engine
        finally:
            engine.close()


def _orders(engine: Engine) -> list[int]:
    s = engine.session()
    try:
        rows = s.query("SELECT o_orderkey FROM orders WHERE o_orderkey < 2000").rows
    finally:
        s.close()
    return [int(r[0]) for r in rows]


def test_read_uncommitted_fails_isolation_1(
    mariadb: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = mariadb.session

    def dirty() -> Session:
        session = opened()
        session.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
        return session

    monkeypatch.setattr(mariadb, "session", dirty)
    check = Checks(mariadb, _orders(mariadb)).isolation(1)
    assert check.verdict == "failed"
    assert "step txn2" in check.message and "uncommitted update is visible" in check.message


def test_unlocked_reads_fail_isolation_3(mariadb: Engine) -> None:
    checks = Checks(mariadb, _orders(mariadb))
    checks.lock = ""  # the ACID Transaction's reads take no lock: txn2 reads stale values
    check = checks.isolation(3)
    assert check.verdict == "failed"
    assert "txn1 then txn2" in check.message
    assert checks.__class__(mariadb, _orders(mariadb)).isolation(3).verdict == "passed"
