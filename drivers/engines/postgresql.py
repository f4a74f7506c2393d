"""PostgreSQL through psycopg 3: COPY fed straight from the Arrow batches.

Each batch is formatted as CSV by pyarrow's C++ writer (no per-row Python) and streamed into
``COPY ... FROM STDIN`` on a connection of its own per table, so the tables load in parallel.
The table is truncated in the same transaction, which allows ``COPY ... FREEZE`` (rows are
written frozen: no later vacuum pass rewrites them). Keys, the allowed indexes and ANALYZE
follow the load, again one connection per table.

URL options other than the kit's own (``indexes``, ``refresh_batch``, ``copy_streams``,
``restart``: the command that restarts the server before a study's cold pass) are libpq
parameters:
``sslmode``, ``application_name``, ``options=-c work_mem=256MB``, ``connect_timeout`` ...
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ClassVar

import psycopg
import psycopg.errors
import pyarrow as pa
import pyarrow.csv as pacsv
from psycopg.copy import QueuedLibpqWriter

from dbbench.dbgen.schema import TABLES
from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, Counters, EngineFacts, EngineSpec, SettingRule
from dbbench.drivers.engines.common import (
    DisclosedSettings,
    ErrorPolicy,
    SharedStream,
    SqlEngine,
    SqlSession,
    wait_for,
)
from dbbench.drivers.engines.restart import run_restart, wait_ready
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions, cpu_streams
from dbbench.drivers.signals import within
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="postgresql",
    url_form="postgresql://user:pw@host:5432/db",
    requires=("psycopg",),
    schemes=("postgres",),
)

_LOCK_KEY = 0x0DBBE4C8  # the advisory lock (per database) held by a running benchmark

#: The specification's DDL as written; keys are added after the load.
DDL = ddl.DdlRules("postgresql")


@dataclass(frozen=True)
class PostgresOptions(EngineOptions):
    """The kit's options; every other query option is a libpq parameter."""

    indexes: bool = True  # the allowed secondary indexes after the load
    copy_streams: int = field(default_factory=cpu_streams)  # parallel COPYs into LINEITEM
    restart: str = ""  # a command that restarts the server: a study's cold passes (``reopen``)


_CSV = pacsv.WriteOptions(include_header=False, delimiter="|", quoting_style="needed")
_COPY = "COPY {table} ({columns}) FROM STDIN (FORMAT csv, DELIMITER '|'{freeze})"


def copy_batches(
    conn: psycopg.Connection[Any], table: str, batches: Iterable[Any], *, freeze: bool = False
) -> int:
    """COPY Arrow batches (or tables) into ``table``; returns rows sent. ``freeze`` only
    when the table was truncated in the same transaction."""
    rows = 0
    columns = ", ".join(TABLES[table].column_names)
    with conn.cursor() as cur:
        sql = _COPY.format(table=table, columns=columns, freeze=", FREEZE" if freeze else "")
        with cur.copy(sql, writer=QueuedLibpqWriter(cur)) as copy:
            for batch in batches:
                sink = pa.BufferOutputStream()
                pacsv.write_csv(batch, sink, _CSV)
                copy.write(memoryview(sink.getvalue()))
                rows += batch.num_rows
    return rows


class PostgresSession(SqlSession):
    def explain_sql(self, sql: str, analyze: bool) -> str:
        return ("EXPLAIN (ANALYZE, BUFFERS) " if analyze else "EXPLAIN ") + sql

    def insert_rows(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            copy_batches(self.conn, table, [data])

    def delete_keys(self, table: str, column: str, keys: list[int]) -> int:
        with self.conn.cursor() as cur:
            cur.execute(f"DELETE FROM {table} WHERE {column} = ANY(%s::bigint[])", (keys,))
            return int(cur.rowcount)

    def cancel(self) -> None:
        self.conn.cancel_safe()

    def backend_pid(self) -> int:
        """The server process serving this connection (o2c counts only these' CPU)."""
        return int(self.query("SELECT pg_backend_pid()").rows[0][0])


def _lost(exc: BaseException) -> bool:
    if isinstance(exc, psycopg.errors.AdminShutdown | psycopg.errors.CrashShutdown):
        return True
    client_side = getattr(exc, "sqlstate", None) is None
    return client_side and isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError)


def _cancelled(exc: BaseException) -> bool:
    return isinstance(exc, psycopg.errors.QueryCanceled)


GIB = 1 << 30
_COUNTER_NAMES = (
    "blks_read",
    "blks_hit",
    "tup_returned",
    "tup_fetched",
    "tup_inserted",
    "tup_deleted",
    "temp_bytes",
    "xact_commit",
)
#: The telemetry sampler's reading: the database's cumulative counters (stored as rates).
_COUNTERS = (
    f"SELECT {', '.join(_COUNTER_NAMES)} FROM pg_stat_database WHERE datname = current_database()"
)
#: (max connections, reserved for superusers, client connections open now).
_CONNECTIONS = (
    "SELECT current_setting('max_connections')::int, "
    "current_setting('superuser_reserved_connections')::int, "
    "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')"
)
#: Settings that keep the working set off memory (``dbbench preflight``).
PREFLIGHT = (
    SettingRule(
        "shared_buffers",
        "is smaller than {db}: it leans on the OS cache; a fair setting is about 25 % of RAM",
        ram_share=0.25,  # 128 MB is already a quarter of a 512 MiB machine
    ),
    SettingRule(
        "work_mem",
        "makes sorts and hashes of SF {sf:g} spill to disk; 64 MB or more per query stream "
        "is usual for TPC-H",
        at_least=64 << 20,
        from_sf=1,
    ),
)


class PostgresEngine(SqlEngine):
    name: ClassVar[str] = "postgresql"
    dialect: ClassVar[str] = "postgresql"
    facts: ClassVar[EngineFacts] = EngineFacts(
        lock_read=" FOR UPDATE",  # READ COMMITTED: the ACID Transaction locks what it reads
        bytes_per_sf=1.4 * GIB,  # measured at SF 1: tables and keys
        server_processes=("postgres",),
        display_name="PostgreSQL",
        hammerdb_db="pg",
        counters=Counters(_COUNTERS, frozenset(_COUNTER_NAMES)),
        connections_sql=_CONNECTIONS,
        preflight=PREFLIGHT,
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,
        cancel=True,
        storage_size=True,
    )
    ddl_rules: ddl.DdlRules = DDL
    disclosed: ClassVar[DisclosedSettings] = DisclosedSettings(
        "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ({names})",
        (
            "shared_buffers",
            "work_mem",
            "maintenance_work_mem",
            "effective_cache_size",
            "max_parallel_workers_per_gather",
            "max_parallel_workers",
            "max_worker_processes",
            "jit",
            "random_page_cost",
            "synchronous_commit",
            "wal_level",
        ),
    )
    indexes_sql: ClassVar[str] = (
        "SELECT indexname, tablename FROM pg_indexes WHERE schemaname = current_schema()"
    )
    #: every setting whose source is not the default (the URL's ``options=-c ...`` come as
    #: "client"), less what each driver sets for itself on connecting
    changed_sql: ClassVar[str] = (
        "SELECT name, current_setting(name) FROM pg_settings "
        "WHERE source NOT IN ('default', 'override') AND name NOT IN ({names}) ORDER BY name"
    )
    driver_set: ClassVar[tuple[str, ...]] = (
        "application_name",
        "client_encoding",
        "DateStyle",
        "IntervalStyle",
        "TimeZone",
        "extra_float_digits",
    )

    def settings(self) -> dict[str, str]:
        """The disclosed settings, then every other one not at its default."""
        found = super().settings()
        for name, value in self.settings_from(self.changed_sql, self.driver_set).items():
            found.setdefault(name, value)
        return found

    def __init__(self, url: EngineURL) -> None:
        options = PostgresOptions.from_url(url)
        super().__init__(url, ErrorPolicy(url, (psycopg.Error,), _lost, _cancelled), options)
        self.indexes = options.indexes
        self.copy_streams = options.copy_streams
        self.restart = options.restart
        params: dict[str, Any] = dict(PostgresOptions.driver_options(url))
        params.setdefault("connect_timeout", "10")
        for key, value in (
            ("host", url.host),
            ("port", url.port),
            ("user", url.username),
            ("password", url.password),
            ("dbname", url.database),
        ):
            if value is not None:
                params[key] = value
        self._params = params
        self._locked = False  # holds the benchmark lock (see lock_benchmark, close)
        self._admin = self.session()

    def _connect(self) -> psycopg.Connection[Any]:
        with self.policy.guard("connect"):
            return psycopg.connect(autocommit=True, **self._params)

    def admin(self) -> SqlSession:
        return self._admin

    def session(self) -> PostgresSession:
        return PostgresSession(self, self._connect())

    def reopen(self) -> bool:
        """With the URL's ``restart`` command: the server restarted (its shared buffers
        gone) and the kit's connection opened again. Without one, False: the kit cannot
        restart a server it did not start. The restart ends the session that held the
        benchmark lock: the lifecycle takes it again (:func:`drivers.lifecycle.relock`)."""
        if not self.restart:
            return False
        with contextlib.suppress(Exception):
            self._admin.close()
        self._locked = False  # the restart ended the session that held it
        run_restart(self.name, self.restart)
        self._admin = wait_ready(self.name, self.session)
        return True

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """One COPY FREEZE per table, except LINEITEM, the long pole: one backend parses a
        COPY on one core, so it gets ``copy_streams`` COPYs at once (default: one per CPU,
        at most 4; measured at SF1 on 2 cores: load 19-23 s instead of 25-27 s). Several
        writers cannot share the TRUNCATE that FREEZE needs, so those rows are not frozen."""
        if table != "lineitem" or self.copy_streams == 1:
            with self._connect() as conn, self.policy.guard(f"load {table}"), conn.transaction():
                conn.execute(f"TRUNCATE {table}")
                return copy_batches(conn, table, batches, freeze=True)
        shared = SharedStream(batches)

        def one_stream() -> None:
            with self._connect() as conn, self.policy.guard(f"load {table}"):
                copy_batches(conn, table, shared)

        pool = ThreadPoolExecutor(max_workers=self.copy_streams)
        futures = []
        try:
            futures = [pool.submit(one_stream) for _ in range(self.copy_streams)]
            wait_for(futures)
        except BaseException:  # Ctrl-C: the COPYs stop at their next batch
            shared.stop()
            wait_for(futures)
            raise
        finally:
            pool.shutdown(wait=True)
        for future in futures:
            future.result()
        if shared.failure is not None:
            raise shared.failure
        return shared.rows

    def finish_load(self) -> dict[str, float]:
        """Primary keys, then foreign keys, indexes and ANALYZE, each step over all tables
        at once on separate connections (the server builds them in parallel)."""
        steps: dict[str, float] = {}
        steps["primary_keys"] = self._parallel([ddl.add_primary_key(t) for t in TABLES])
        steps["foreign_keys"] = self._parallel(ddl.add_foreign_keys())
        if self.indexes:
            steps["indexes"] = self._parallel(ddl.create_indexes())
        steps["analyze"] = self._parallel([f"ANALYZE {t}" for t in TABLES])
        return steps

    def _parallel(self, statements: list[str]) -> float:
        start = time.perf_counter()

        def run(sql: str) -> None:
            with self._connect() as conn, self.policy.guard("finish load"):
                conn.execute(sql)

        with ThreadPoolExecutor(max_workers=4) as pool:
            for future in [pool.submit(run, sql) for sql in statements]:
                future.result()
        return time.perf_counter() - start

    def version(self) -> str:
        with self.policy.guard("version"):
            rows = self._admin.query("SHOW server_version").rows
        return f"PostgreSQL {rows[0][0]}"

    def place(self) -> str:
        """The database, host (or socket directory), port and user libpq reached."""
        info = self._admin.conn.info
        return f"database {info.dbname!r} on {info.host}:{info.port} as user {info.user!r}"

    def foreign_tables(self) -> list[str]:
        """The current schema's tables that are neither TPC-H's nor dbbench's own, in a
        database dbbench never loaded (one that holds ``dbbench_state`` is dbbench's)."""
        if self.read_state():
            return []
        sql = (
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        )
        with self.policy.guard("table list"):
            names = [str(r[0]) for r in self._admin.query(sql).rows]
        return [n for n in names if n not in TABLES and not n.startswith("dbbench")]

    def server_identity(self) -> str:
        """Which server (cluster) this is, whatever the database or address: its system
        identifier (o2c refuses two URLs of one server in one line)."""
        with self.policy.guard("server identity"):
            rows = self._admin.query("SELECT system_identifier FROM pg_control_system()").rows
        return f"postgresql system_identifier {rows[0][0]}"

    def storage_bytes(self) -> int | None:
        with self.policy.guard("storage size"):
            rows = self._admin.query("SELECT pg_database_size(current_database())").rows
        return int(rows[0][0])

    def lock_benchmark(self) -> None:
        """A session-level advisory lock on the admin connection, held until close()."""
        with self.policy.guard("lock"):
            got = self._admin.query(f"SELECT pg_try_advisory_lock({_LOCK_KEY})").rows[0][0]
            if got:
                self._locked = True
                return
            holder = self._admin.query(
                "SELECT a.pid, a.application_name, a.client_addr FROM pg_locks l "
                "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
                f"AND l.objid = {_LOCK_KEY} AND l.database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())"
            ).rows
        who = f"PostgreSQL backend {holder[0][0]}" if holder else "another session"
        raise DriversError(
            f"another dbbench run is using database {self.url.database or '(default)'} "
            f"({who} holds its benchmark lock); wait for it to end"
        )

    def close(self) -> None:
        """Releases the benchmark lock before the connection goes: the server ends a closed
        session's backend (and frees its locks) only after the client has gone, so a run
        started right after this one ends could otherwise still find the lock held."""
        if self._locked:
            self._locked = False
            # bounded: a connection a signal cut mid-query must not hold the exit (closing
            # it releases the lock too, only later)
            within(2.0, lambda: self._admin.query(f"SELECT pg_advisory_unlock({_LOCK_KEY})"))
        self._admin.close()


def connect(url: EngineURL) -> PostgresEngine:
    """The registry's entry point for ``postgresql://`` and ``postgres://`` URLs."""
    return PostgresEngine(url)
