"""SQLite through SQLAlchemy and the standard library's sqlite3.

Keys are declared in CREATE TABLE (SQLite cannot add them later); a file database runs in
write-ahead-log mode so readers go on while a refresh function writes. sqlite3 binds neither
``Decimal`` nor ``date``, so those columns are sent as floats and ISO-8601 text.
"""

from __future__ import annotations

import sqlite3
from typing import Any, ClassVar

import pyarrow as pa
from sqlalchemy.pool import NullPool, StaticPool

from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineSpec
from dbbench.drivers.engines.common import ErrorPolicy, SqlSession
from dbbench.drivers.engines.sqlalchemy import AlchemySession, SqlAlchemyEngine, connection_lost
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="sqlite",
    url_form="sqlite:///file.db",
    requires=("sqlalchemy", "sqlite3"),
    install="pip install 'dbbench[sqlite]'",
)

#: Keys inside CREATE TABLE, foreign keys included: SQLite has no ALTER TABLE ADD CONSTRAINT.
DDL = ddl.DdlRules("sqlite", keys_in_create=True, alter_foreign_keys=False)


class SqliteSession(AlchemySession):
    def cancel(self) -> None:
        self.conn.driver_connection.interrupt()


class SqliteEngine(SqlAlchemyEngine):
    """SQLite through the standard library: keys declared in CREATE TABLE (SQLite cannot add
    them later), write-ahead logging so readers run while a refresh function writes."""

    name: ClassVar[str] = "sqlite"
    dialect: ClassVar[str] = "sqlite"
    capabilities: ClassVar[Capabilities] = Capabilities(cancel=True, storage_size=True)
    session_class: ClassVar[type[SqlSession]] = SqliteSession

    def __init__(self, url: EngineURL) -> None:
        memory = url.database in (None, "", ":memory:")
        pool = StaticPool if memory else NullPool  # one shared in-memory database
        args = {"check_same_thread": False, "timeout": 60}
        super().__init__(url, poolclass=pool, connect_args=args)
        if not memory:
            self._admin.execute("PRAGMA journal_mode=WAL")

    def make_policy(self, url: EngineURL, errors: tuple[type[BaseException], ...]) -> ErrorPolicy:
        return ErrorPolicy(url, (*errors, sqlite3.Error), connection_lost, _sqlite_interrupted)

    def make_ddl_rules(self) -> ddl.DdlRules:
        return DDL

    def python_column(self, column: pa.ChunkedArray) -> list[Any]:
        """sqlite3 binds neither Decimal nor (without a deprecated adapter) date."""
        if pa.types.is_decimal(column.type):
            column = column.cast(pa.float64())
        elif pa.types.is_date(column.type):
            column = column.cast(pa.string())  # ISO 8601
        return column.to_pylist()  # type: ignore[no-any-return]

    def version(self) -> str:
        return f"SQLite {sqlite3.sqlite_version}"

    def settings(self) -> dict[str, str]:
        found = {}
        for name in ("journal_mode", "synchronous", "page_size", "cache_size"):
            rows = self._admin.query(f"PRAGMA {name}").rows
            found[name] = str(rows[0][0]) if rows else ""
        return found

    def storage_bytes(self) -> int | None:
        with self.policy.guard("storage size"):
            pages = self._admin.query("PRAGMA page_count").rows[0][0]
            size = self._admin.query("PRAGMA page_size").rows[0][0]
        return int(pages) * int(size)


def _sqlite_interrupted(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)


def connect(url: EngineURL) -> SqliteEngine:
    """The registry's entry point for ``sqlite://`` URLs."""
    return SqliteEngine(url)
