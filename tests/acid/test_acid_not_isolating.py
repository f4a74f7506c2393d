"""A deliberately non-isolating configuration is caught by the right isolation test, with a
message naming the step: MariaDB sessions at READ UNCOMMITTED (a dirty read, test 1) and
ACID Transactions whose reads do not lock at REPEATABLE READ (a lost update, test 3)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dbbench.drivers.acid.checks import Checks
from dbbench.drivers.acid.transaction import HISTORY_DDL
from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine


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
