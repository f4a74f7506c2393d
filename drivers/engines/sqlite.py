"""SQLite through SQLAlchemy and the standard library's sqlite3.

Keys are declared in CREATE TABLE (SQLite cannot add them later); the secondary indexes
TPC-H allows (foreign-key columns, single DATE columns) are built after the load by default
(``?indexes=false`` leaves them out): SQLite joins by nested loops over indexes only, and
without them Q17 and Q20 scan LINEITEM once per outer row (at SF 0.1 both ran past 120 s;
with the indexes, under a second each). A file database runs in write-ahead-log mode so
readers go on while a refresh function writes. sqlite3 binds neither ``Decimal`` nor
``date``, so those columns are sent as floats and ISO-8601 text.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa
from sqlalchemy.pool import NullPool, StaticPool

from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput
from dbbench.drivers.engines import sqlalchemy as alchemy
from dbbench.drivers.engines.common import ErrorPolicy, SqlSession
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="sqlite",
    url_form="sqlite:///file.db",
    requires=("sqlalchemy", "sqlite3"),
)

#: Keys inside CREATE TABLE, foreign keys included: SQLite has no ALTER TABLE ADD CONSTRAINT.
DDL = ddl.DdlRules("sqlite", keys_in_create=True, alter_foreign_keys=False)


@dataclass(frozen=True)
class SqliteOptions(alchemy.AlchemyOptions):
    """As any SQLAlchemy URL's, but the allowed secondary indexes are built by default: the
    nested-loop joins of SQLite's planner need them (see the module's note)."""

    indexes: bool = True


class SqliteSession(alchemy.AlchemySession):
    def explain_sql(self, sql: str, analyze: bool) -> str:
        return "EXPLAIN QUERY PLAN " + sql  # SQLite has no executed plan

    def plan_from(self, out: QueryOutput) -> str:
        """``(id, parent, notused, detail)`` rows: the details, indented by their depth."""
        depth: dict[int, int] = {0: -1}
        lines = []
        for node, parent, _, detail in out.rows:
            depth[int(node)] = depth.get(int(parent), -1) + 1
            lines.append("  " * depth[int(node)] + str(detail))
        return "\n".join(lines)

    def cancel(self) -> None:
        self.conn.driver_connection.interrupt()


class SqliteEngine(alchemy.SqlAlchemyEngine):
    """SQLite through the standard library: keys declared in CREATE TABLE (SQLite cannot add
    them later), write-ahead logging so readers run while a refresh function writes."""

    name: ClassVar[str] = "sqlite"
    dialect: ClassVar[str] = "sqlite"
    capabilities: ClassVar[Capabilities] = Capabilities(cancel=True, storage_size=True)
    facts: ClassVar[EngineFacts] = EngineFacts(
        bytes_per_sf=1.52e9,  # measured: the SF 0.1 file is 152.0 MB with the indexes
        display_name="SQLite",
        # the write lock is taken at the start: a deferred transaction that reads first
        # fails ("database is locked") when it then wants to write
        begin="BEGIN IMMEDIATE",
    )
    session_class: ClassVar[type[SqlSession]] = SqliteSession

    def __init__(self, url: EngineURL) -> None:
        memory = url.database in (None, "", ":memory:")
        pool = StaticPool if memory else NullPool  # one shared in-memory database
        args = {"check_same_thread": False, "timeout": 60}
        options = SqliteOptions.from_url(url)
        super().__init__(url, options=options, poolclass=pool, connect_args=args)
        if not memory:
            self._admin.execute("PRAGMA journal_mode=WAL")

    def make_policy(self, url: EngineURL, errors: tuple[type[BaseException], ...]) -> ErrorPolicy:
        return ErrorPolicy(
            url, (*errors, sqlite3.Error), alchemy.connection_lost, _sqlite_interrupted
        )

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
