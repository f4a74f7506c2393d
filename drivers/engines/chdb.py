"""ClickHouse embedded in the process (chDB): MergeTree tables fed Arrow batches as they are
generated, no text round trip.

``chdb`` alone is an in-memory database; ``chdb:///folder`` (relative) or ``chdb:////folder``
(absolute) a chDB session directory on disk. One process hosts one chDB database: a second
engine on another folder cannot open while the first one is open. Query options other than
the kit's own are ClickHouse query-level settings given to every connection
(``?max_threads=4``).

* **Load**: every table on a connection of its own (tables in parallel), each one
  ``INSERT INTO t FORMAT ArrowStream`` fed the generator's batches as Arrow IPC messages
  (``send_insert``: the engine parses the stream while the generator produces it). Each
  table is a ``MergeTree`` ordered by its primary key; ClickHouse does not enforce keys and
  has no foreign keys, so none are declared. Parts are merged by ClickHouse's background
  merges; ``?optimize=true`` ends the load with ``OPTIMIZE TABLE ... FINAL`` (one part per
  table), timed as the load's ``checkpoint`` (measured at SF 1: 67 s, longer than the load).
* **Queries**: dialect ``clickhouse``; every connection runs with ``join_use_nulls = 1`` and
  ``aggregate_functions_null_for_empty = 1`` (SQL's NULLs) and orders joins with
  ``dphyp`` before ``greedy`` (no cross products: Q8 after RF2), see :data:`SESSION_SETTINGS`.
* **Refresh functions**: ``INSERT`` (each insert is atomic) and ``ALTER TABLE ... DELETE``,
  a mutation waited for (``mutations_sync = 2``). A lightweight ``DELETE`` leaves a mask of
  deleted rows, and over a masked ORDERS chDB 26.9 planned Q8 badly (measured at SF 0.1:
  0.6 s before the delete, over 10 minutes after; 0.6 s again once the mask was applied).
  ClickHouse has no multi-statement transactions, so an order and its lines are two atomic
  inserts; the kit's bookkeeping repairs a pair left half-applied by key.
* **Streams** run concurrently on connections of their own: chDB releases Python's lock
  while a query runs, and each query uses ClickHouse's own threads.
* **Cancel**: every statement of a session carries a comment with the session's token;
  ``KILL QUERY`` on the engine's own connection ends the one running.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import chdb
import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput
from dbbench.drivers.engines.common import DisclosedSettings, ErrorPolicy, SqlEngine, SqlSession
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, check_local

ENGINE = EngineSpec(
    name="chdb",
    url_form="chdb (in memory) | chdb:///folder",
    requires=("chdb",),
)

#: CHAR(n) and VARCHAR(n) are ClickHouse Strings; ClickHouse has no foreign keys.
DDL = ddl.DdlRules("chdb", type_name=ddl.varchar_only, alter_foreign_keys=False)

#: What every connection sets: the SQL semantics ClickHouse departs from by default (an
#: outer join's missing side is NULL, not the type's default value: Q13 counts the orders
#: of customers without any; an aggregate of no rows is NULL, not 0: Q17 at SF 0.01), and
#: the join orderer: ``dphyp`` first (it never joins two inputs without a join condition
#: between them; it handles inner joins only, and ``greedy`` takes the others). With
#: ``greedy`` alone, once ORDERS has had a mutation (RF2's delete) and its row count is
#: known, Q8 was planned as ``nation ⋈ region × part ⋈ customer ⋈ orders ⋈ lineitem``, a
#: cross product of the region's nations and the part filter's rows joined to every
#: customer of those nations (about 40 million rows at SF 1; Q8 took 60 s in the SF 1 suite).
SESSION_SETTINGS = {
    "join_use_nulls": "1",
    "aggregate_functions_null_for_empty": "1",
    "query_plan_optimize_join_order_algorithm": "'dphyp,greedy'",  # a SET literal
}

#: Bytes on disk per unit of scale factor: MergeTree's compressed parts, measured at SF 1
#: (307.5 MB of active parts).
BYTES_PER_SF = 307.5e6

#: The end-of-stream marker of the Arrow IPC stream format.
_ARROW_EOS = b"\xff\xff\xff\xff\x00\x00\x00\x00"


@dataclass(frozen=True)
class ChdbOptions(EngineOptions):
    """The kit's options; every other query option is a ClickHouse setting."""

    optimize: bool = False  # OPTIMIZE TABLE ... FINAL after the load (one part per table)


class ChdbSession(SqlSession):
    """One chDB connection; its statements carry the session's token for ``KILL QUERY``."""

    def __init__(self, engine: ChdbEngine) -> None:
        super().__init__(engine, engine.connection())
        self.chdb_engine = engine
        self.token = uuid.uuid4().hex
        self._mark = f"/* dbbench:{self.token} */ "

    def run(self, sql: str) -> pa.Table:
        """One statement; its result as an Arrow table (empty for DDL and DML).

        A connection whose statement was cancelled hands the next statement the cancelled
        one's leftover output (chDB 4.4), so the session moves to a fresh connection."""
        try:
            result: pa.Table = self.conn.query(self._mark + sql, "ArrowTable")
        except _ERRORS as exc:
            if _cancelled(exc):
                old, self.conn = self.conn, self.chdb_engine.connection()
                with contextlib.suppress(Exception):
                    old.close()
            raise
        return result

    def execute(self, sql: str) -> None:
        with self.policy.guard("statement"):
            self.run(sql)

    def explain_sql(self, sql: str, analyze: bool) -> str:
        """ClickHouse has no executed plan: ``analyze`` gives its processor pipeline."""
        return ("EXPLAIN PIPELINE " if analyze else "EXPLAIN ") + sql

    def query(self, sql: str) -> QueryOutput:
        with self.policy.guard("query"):
            table = self.run(sql)
        columns = [str(c) for c in table.column_names]
        rows = list(zip(*(col.to_pylist() for col in table.columns), strict=True))
        return QueryOutput(columns, rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """ClickHouse has no multi-statement transactions: each INSERT and DELETE is atomic
        by itself (``EngineFacts.transactional`` is false; the kit repairs by key)."""
        yield

    def insert_rows(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            insert_arrow(self.conn, table, data.to_batches())

    def delete_keys(self, table: str, column: str, keys: list[int]) -> int:
        listed = ", ".join(map(str, keys))
        found = self.run(f"SELECT count() FROM {table} WHERE {column} IN ({listed})")
        count = int(found.column(0)[0].as_py())
        if count:
            self.run(
                f"ALTER TABLE {table} DELETE WHERE {column} IN ({listed}) "
                "SETTINGS mutations_sync = 2"
            )
        return count

    def cancel(self) -> None:
        self.chdb_engine.kill(self.token)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def insert_arrow(conn: Any, table: str, batches: Iterable[pa.RecordBatch]) -> int:
    """``INSERT INTO table FORMAT ArrowStream``, the stream sent message by message as the
    batches come (the schema, each batch, the end marker). Returns rows sent."""
    rows = 0
    with conn.send_insert(f"INSERT INTO {table}", "ArrowStream") as inserter:
        inserter.append(memoryview(TABLES[table].arrow_schema.serialize()))
        for batch in batches:
            inserter.append(memoryview(batch.serialize()))
            rows += batch.num_rows
        inserter.append(_ARROW_EOS)
        inserter.finish()
    return rows


class ChdbEngine(SqlEngine):
    name: ClassVar[str] = "chdb"
    disclosed: ClassVar[DisclosedSettings] = DisclosedSettings(
        "SELECT name, value FROM system.settings WHERE name IN ({names})",
        ("max_threads", "max_memory_usage", "mutations_sync", *SESSION_SETTINGS),
    )
    dialect: ClassVar[str] = "clickhouse"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,  # one INSERT per table, each on its own connection
        cancel=True,  # KILL QUERY by the session's token
        storage_size=True,
    )
    # no multi-statement transactions: o2c and mixed workloads refuse it
    facts: ClassVar[EngineFacts] = EngineFacts(
        transactional=False, bytes_per_sf=BYTES_PER_SF, display_name="ClickHouse (chDB)"
    )
    ddl_rules: ddl.DdlRules = DDL
    statistics_step: ClassVar[str] = "checkpoint"

    def __init__(self, url: EngineURL) -> None:
        options = ChdbOptions.from_url(url)
        super().__init__(url, ErrorPolicy(url, _ERRORS, cancelled=_cancelled), options)
        self.keys = False  # ClickHouse neither enforces nor adds keys; ORDER BY the key
        self.optimize = options.optimize
        self.path = url.database or ":memory:"
        if self.path != ":memory:":
            folder = os.path.dirname(os.path.abspath(self.path))
            if not os.path.isdir(folder):
                raise DriversError(f"no such directory for the chDB folder: {folder}")
        self.session_settings = {**SESSION_SETTINGS, **ChdbOptions.driver_options(url)}
        self._lock = threading.Lock()
        with self.policy.guard("connect"):
            self._admin = ChdbSession(self)

    def connection(self) -> Any:
        """A new chDB connection to the database, with :data:`SESSION_SETTINGS` and the
        URL's settings."""
        conn = chdb.connect(self.path)  # type: ignore[no-untyped-call]
        for name, value in self.session_settings.items():
            conn.query(f"SET {name} = {value}")
        return conn

    def admin(self) -> SqlSession:
        return self._admin

    def session(self) -> ChdbSession:
        with self._lock, self.policy.guard("connect"):
            return ChdbSession(self)

    def create_schema(self) -> None:
        """Each table a MergeTree ordered by its primary key (the data's clustering, which
        ClickHouse uses to skip granules; it enforces no uniqueness)."""
        with self.policy.guard("create schema"):
            for table in ddl.drop_order():
                self._admin.run(ddl.drop_table(table))
            for table, spec in TABLES.items():
                order = ", ".join(spec.primary_key)
                self._admin.run(
                    ddl.create_table(table, DDL, keys=False)
                    + f" ENGINE = MergeTree ORDER BY ({order}) SETTINGS {_TABLE_SETTINGS}"
                )
            self._admin.run(_STATE_DDL)
            self._admin.run(f"TRUNCATE TABLE {ddl.STATE_TABLE}")

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        session = self.session()
        try:
            with self.policy.guard(f"load {table}"):
                return insert_arrow(session.conn, table, batches)
        finally:
            session.close()

    def analyze_sql(self) -> list[str]:
        """ClickHouse keeps no optimizer statistics to gather; with ``optimize=true`` the
        load's parts are merged into one per table (else the background merges do it)."""
        if not self.optimize:
            return []
        return [f"OPTIMIZE TABLE {t} FINAL" for t in TABLES]

    def write_state(self, values: dict[str, str]) -> None:
        """The state table is a key-value table (EmbeddedRocksDB): an INSERT replaces the
        rows of its keys, atomically, without a transaction."""
        rows = ", ".join(f"({_sql_text(k)}, {_sql_text(v)})" for k, v in values.items())
        with self.policy.guard("write state"):
            self._admin.run(_STATE_DDL)
            if rows:
                self._admin.run(f"INSERT INTO {ddl.STATE_TABLE} VALUES {rows}")

    def kill(self, token: str) -> None:
        """End the statement a session with this token is running (from another thread)."""
        with self.policy.guard("cancel"):
            self._admin.run(
                f"KILL QUERY WHERE query LIKE '%dbbench:{token}%' AND query NOT LIKE "
                "'%KILL QUERY%' SYNC"
            )

    def version(self) -> str:
        """``chDB 4.4.0 (ClickHouse 26.9.2.1)``: the product first, so that a report labels
        the database with it alone (not ``chdb ClickHouse ...``)."""
        return f"chDB {chdb.__version__} (ClickHouse {chdb.engine_version})"

    def settings(self) -> dict[str, str]:
        found = super().settings()
        found["database"] = self.path
        found["load"] = "INSERT ... FORMAT ArrowStream per table, tables in parallel"
        found["tables"] = "MergeTree ORDER BY the primary key; no keys enforced"
        found["refresh"] = "INSERT and ALTER TABLE DELETE (mutations_sync = 2); no transactions"
        found["streams"] = "one chDB connection per stream, concurrent (Python's lock released)"
        return found

    def storage_bytes(self) -> int | None:
        """The active parts' size on disk; an in-memory database has no storage."""
        if self.path == ":memory:":
            return None
        with self.policy.guard("storage size"):
            found = self._admin.run(
                "SELECT toUInt64(sum(bytes_on_disk)) FROM system.parts "
                "WHERE active AND database = currentDatabase()"
            )
        return int(found.column(0)[0].as_py() or 0)

    def close(self) -> None:
        self._admin.close()


#: Lightweight UPDATE (plain ``UPDATE ... SET``) needs each row's block number and offset.
_TABLE_SETTINGS = "enable_block_number_column = 1, enable_block_offset_column = 1"

#: The kit's bookkeeping: a key-value table, so writing a key replaces its row.
_STATE_DDL = (
    f"CREATE TABLE IF NOT EXISTS {ddl.STATE_TABLE} (state_key String, state_value String) "
    "ENGINE = EmbeddedRocksDB PRIMARY KEY state_key"
)

#: chDB raises ``chdb._exceptions.ChdbError`` (a RuntimeError, not ``chdb.ChdbError``)
_ERRORS: tuple[type[Exception], ...] = (chdb.ChdbError, RuntimeError)


def _cancelled(exc: BaseException) -> bool:
    return "QUERY_WAS_CANCELLED" in str(exc)


def _sql_text(value: str) -> str:
    """A ClickHouse string literal (backslashes escape in ClickHouse strings)."""
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def connect(url: EngineURL) -> ChdbEngine:
    """The registry's entry point for ``chdb`` URLs (a folder, never a server)."""
    check_local(url, "chDB", "folder")
    return ChdbEngine(url)
