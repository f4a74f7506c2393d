"""DuckDB, the embedded default: Arrow batches are scanned in place, no text round trip.

``duckdb`` alone is an in-memory database; ``duckdb:///file.db`` a file. Query options that
are DuckDB settings (``threads``, ``memory_limit``, ...) go to ``duckdb.connect(config=)``;
``keys=true`` declares the primary keys after the load (off by default: DuckDB does not use
them for these queries and building the indexes only lengthens the load). DuckDB cannot add
foreign keys to an existing table, so it declares none.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

import duckdb
import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers import ddl
from dbbench.drivers.engine import (
    Capabilities,
    Counters,
    EngineFacts,
    EngineSpec,
    SettingRule,
)
from dbbench.drivers.engines.common import (
    DisclosedSettings,
    ErrorPolicy,
    SharedStream,
    SqlEngine,
    SqlSession,
    plan_text,
    wait_for,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, check_local

ENGINE = EngineSpec(
    name="duckdb",
    url_form="duckdb (in memory) | duckdb:///file.db",
    requires=("duckdb",),
    install="pip install dbbench",
)

#: CHAR(n) is a VARCHAR in DuckDB; foreign keys cannot be added to an existing table.
DDL = ddl.DdlRules("duckdb", type_name=ddl.varchar_only, alter_foreign_keys=False)


@dataclass(frozen=True)
class DuckDBOptions(EngineOptions):
    """The kit's options; everything else in the query string is a DuckDB setting."""

    keys: bool = False  # primary keys after the load


class DuckDBSession(SqlSession):
    """A DuckDB connection of its own (``cursor()`` of the database's first connection)."""

    def cursor(self) -> Any:
        return self.conn  # a DuckDB connection executes directly; one per session

    def explain(self, sql: str, analyze: bool = False) -> str:
        """The plan as an indented operator tree from ``EXPLAIN (FORMAT json)``: DuckDB's
        boxes wrap their texts at widths that follow the parameters, so two captures of
        one plan would differ line by line. ``analyze``: the executed plan's boxes."""
        if analyze:
            return plan_text(self.query("EXPLAIN ANALYZE " + sql), last_column=True)
        out = self.query("EXPLAIN (FORMAT json) " + sql)
        lines: list[str] = []
        for root in json.loads(str(out.rows[0][-1])):
            _tree(root, 0, lines)
        return "\n".join(lines)

    def insert_rows(self, table: str, data: pa.Table) -> None:
        self.conn.register("dbbench_rows", data)
        try:
            self.conn.execute(f"INSERT INTO {table} SELECT * FROM dbbench_rows")
        finally:
            self.conn.unregister("dbbench_rows")

    def delete_keys(self, table: str, column: str, keys: list[int]) -> int:
        found = self.conn.execute(
            f"DELETE FROM {table} WHERE {column} IN (SELECT UNNEST($keys::BIGINT[]))",
            {"keys": keys},
        ).fetchone()
        return int(found[0]) if found else 0

    def cancel(self) -> None:
        self.conn.interrupt()


class DuckDBEngine(SqlEngine):
    name: ClassVar[str] = "duckdb"
    dialect: ClassVar[str] = "duckdb"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=False,  # measured: one parallel INSERT at a time beats several at once
        cancel=True,
        storage_size=True,
    )
    facts: ClassVar[EngineFacts] = EngineFacts(
        bytes_per_sf=0.28e9,  # measured: the SF 1 file is 279.5 MB (compressed columns)
        display_name="DuckDB",
        plans_off_gil=True,  # measured: a plain Python loop keeps 90 % of its pace meanwhile
        transactional_ddl=True,
        counters=Counters(
            "SELECT coalesce(sum(memory_usage_bytes), 0) AS memory_bytes, "
            "coalesce(sum(temporary_storage_bytes), 0) AS temp_bytes FROM duckdb_memory()"
        ),
        preflight=(
            SettingRule(
                "memory_limit",
                "is smaller than {db}: DuckDB will spill to its temp directory",
            ),
        ),
    )
    ddl_rules: ddl.DdlRules = DDL
    disclosed: ClassVar[DisclosedSettings] = DisclosedSettings(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ({names})",
        ("threads", "memory_limit", "preserve_insertion_order", "temp_directory"),
    )
    indexes_sql: ClassVar[str] = "SELECT index_name, table_name FROM duckdb_indexes()"
    views_sql: ClassVar[str] = "SELECT view_name FROM duckdb_views() WHERE NOT internal"
    statistics_step: ClassVar[str] = "checkpoint"

    def __init__(self, url: EngineURL) -> None:
        options = DuckDBOptions.from_url(url)
        super().__init__(url, ErrorPolicy(url, (duckdb.Error,), cancelled=_interrupted), options)
        self.path = url.database or ":memory:"
        if self.path != ":memory:":
            folder = os.path.dirname(os.path.abspath(self.path))
            if not os.path.isdir(folder):
                raise DriversError(f"no such directory for the DuckDB file: {folder}")
        self.keys = options.keys
        config: dict[str, Any] = dict(DuckDBOptions.driver_options(url))
        self._config = config
        with self.policy.guard("connect"):
            self._db = duckdb.connect(self.path, config=config)
        self._admin = DuckDBSession(self, self._db.cursor())
        self._lock = threading.Lock()
        self.load_connections = max(1, min(4, os.cpu_count() or 1))
        self._load_set: list[str] = []  # settings a running load has changed

    def admin(self) -> SqlSession:
        return self._admin

    def create_schema(self) -> None:
        """The tables, then DuckDB's settings for the load (:meth:`_load_settings`)."""
        super().create_schema()
        for name, value in self._load_settings().items():
            with self.policy.guard(f"set {name} for the load"):
                self._admin.execute(f"SET {name} = '{value}'")
            self._load_set.append(name)

    def _load_settings(self) -> dict[str, str]:
        """What a load sets until its checkpoint, each unless the URL sets it.

        * ``threads = 1``: the streaming inserts run on their own connections' threads
          (``load_connections``), fed by the generator processes; DuckDB's own worker
          threads only compete with them for the cores and Python's lock. Measured at SF1
          on 2 cores: 11.1 s and 12.9 CPU-s with it, 14.0 s and 17.2 CPU-s without.
        * ``memory_limit`` (a database file only; an in-memory database keeps its tables in
          that memory): at its default, 80 % of RAM, the buffer pool grows with the scale
          factor (5.6 GiB at SF10) although a load gains nothing from it (measured at SF10:
          76 s unbounded, 79 s at 640 MB, 0.9 GiB peak resident).
        """
        wanted = {"threads": "1"}
        if self.path != ":memory:":
            wanted["memory_limit"] = LOAD_MEMORY_LIMIT
        return {k: v for k, v in wanted.items() if k not in self.url.query}

    def finish_load(self) -> dict[str, float]:
        """The checkpoint, then DuckDB's defaults again for the queries."""
        steps = super().finish_load()
        while self._load_set:
            name = self._load_set.pop()
            with self.policy.guard(f"restore {name}"):
                self._admin.execute(f"RESET {name}")
        return steps

    def session(self) -> DuckDBSession:
        with self._lock, self.policy.guard("connect"):
            return DuckDBSession(self, self._db.cursor())

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """Streaming ``INSERT ... SELECT`` over Arrow readers: DuckDB pulls the batches as
        they are generated. One such insert runs on one core, so the large tables are
        inserted by several connections at once, all pulling from the same stream (DuckDB
        appends to one table from several transactions without conflicts)."""
        shared = SharedStream(batches)
        big = TABLES[table].name in _BIG_TABLES
        sessions = [self.session() for _ in range(self.load_connections if big else 1)]
        pool = ThreadPoolExecutor(max_workers=len(sessions))
        futures: list[Future[None]] = []
        try:
            with self.policy.guard(f"load {table}"):
                try:
                    futures = [pool.submit(_insert, s, table, shared) for s in sessions]
                    wait_for(futures)
                    for future in futures:
                        future.result()
                except duckdb.Error:
                    if shared.failure is not None:  # the generator's own error, not DuckDB's
                        raise shared.failure from None
                    raise
        except BaseException:
            # Ctrl-C here, or one insert failed: stop the others before anything is closed
            # (closing a connection under a running INSERT crashes DuckDB)
            shared.stop()
            for session in sessions:
                with contextlib.suppress(Exception):
                    session.cancel()
            wait_for(futures)
            raise
        finally:
            pool.shutdown(wait=True)  # every insert has ended: this join is immediate
            for session in sessions:
                session.close()
        return shared.rows

    def analyze_sql(self) -> list[str]:
        """DuckDB keeps statistics up to date while inserting (ANALYZE would only repeat that
        work); a checkpoint moves the data from the write-ahead log into the file."""
        return ["CHECKPOINT"]

    def version(self) -> str:
        return f"DuckDB {duckdb.__version__}"

    def settings(self) -> dict[str, str]:
        """The kit's disclosures, every setting the URL gave, and every other setting of
        ``duckdb_settings()`` that differs from a fresh in-memory database's."""
        found = super().settings()
        sql = "SELECT name, value FROM duckdb_settings()"
        with self.policy.guard("settings"):
            now = {str(k): str(v) for k, v in self._admin.query(sql).rows}
            fresh = duckdb.connect(":memory:")
            try:
                default = {str(k): str(v) for k, v in fresh.execute(sql).fetchall()}
            finally:
                fresh.close()
        for name in self._config:
            if name in now:
                found[name] = now[name]
        for name, value in now.items():
            if name not in _PATH_SETTINGS and default.get(name) != value:
                found.setdefault(name, value)
        found["database"] = self.path
        return found

    def storage_bytes(self) -> int | None:
        """File plus write-ahead log; an in-memory database has no storage to report."""
        if self.path == ":memory:":
            return None
        return sum(os.path.getsize(p) for p in (self.path, self.path + ".wal") if os.path.exists(p))

    def reopen(self) -> bool:
        """A database file closed (its cursors with it: the instance and its buffer pool
        are gone) and opened again; an in-memory database cannot be."""
        if self.path == ":memory:":
            return False
        with self._lock:
            self._admin.close()
            self._db.close()
            with self.policy.guard("reopen"):
                self._db = duckdb.connect(self.path, config=self._config)
            self._admin = DuckDBSession(self, self._db.cursor())
        return True

    def close(self) -> None:
        self._admin.close()
        self._db.close()


#: settings that follow the database's file, not a choice of configuration
_PATH_SETTINGS = frozenset({"temp_directory", "home_directory", "secret_directory"})


def _tree(node: dict[str, Any], depth: int, lines: list[str]) -> None:
    """One operator per line, its details after it, children indented below."""
    lines.append("  " * depth + str(node.get("name", "?")))
    for key, value in (node.get("extra_info") or {}).items():
        shown = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        lines.append("  " * depth + f"    {key}: {' '.join(shown.split())}")
    for child in node.get("children") or []:
        _tree(child, depth + 1, lines)


#: DuckDB's memory limit while loading: the load's peak stays under 1 GiB at any scale factor.
LOAD_MEMORY_LIMIT = "640MB"

#: Tables large enough to be worth several inserting connections.
_BIG_TABLES = frozenset({"lineitem", "orders", "partsupp", "part", "customer"})


def _insert(session: DuckDBSession, table: str, stream: SharedStream) -> None:
    reader = pa.RecordBatchReader.from_batches(TABLES[table].arrow_schema, iter(stream))
    session.conn.register("dbbench_load", reader)
    session.conn.execute(f"INSERT INTO {table} SELECT * FROM dbbench_load")
    session.conn.unregister("dbbench_load")


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.InterruptException)


def connect(url: EngineURL) -> DuckDBEngine:
    """The registry's entry point for ``duckdb`` URLs (a file, never a server)."""
    check_local(url, "DuckDB", "file")
    return DuckDBEngine(url)
