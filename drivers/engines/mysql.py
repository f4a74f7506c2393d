"""MySQL and MariaDB through SQLAlchemy + PyMySQL.

InnoDB clusters rows by the primary key, so the key is declared in CREATE TABLE and the data
arrives in key order (adding it afterwards would rebuild every table). Tables load in
parallel, each on its own connection, with ``LOAD DATA LOCAL INFILE`` from CSV that pyarrow
writes to a temporary file per batch: several times faster than PyMySQL's ``executemany``,
which escapes every value in Python (``?load=insert`` selects that path for comparison).
After the load: the allowed secondary indexes, foreign keys (declared with
``foreign_key_checks=0``: the generated data is consistent by construction, so InnoDB need
not copy each table to validate them) and ANALYZE TABLE.

``mysql://`` and ``mariadb://`` without a driver mean PyMySQL.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import pyarrow as pa
import pyarrow.csv as pacsv
import pymysql
import sqlalchemy as sa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput, SettingRule
from dbbench.drivers.engines.common import DisclosedSettings, ErrorPolicy, SqlSession
from dbbench.drivers.engines.sqlalchemy import (
    AlchemyOptions,
    AlchemySession,
    SqlAlchemyEngine,
    sa_url,
)
from dbbench.drivers.errors import DriversError, QueryCancelledError
from dbbench.drivers.signals import within
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="mysql",
    url_form="mysql://user:pw@host:3306/db | mariadb://...",
    requires=("sqlalchemy", "pymysql"),
    schemes=("mariadb",),
)

#: InnoDB clusters by the primary key: keys inside CREATE TABLE, foreign keys added later.
DDL = ddl.DdlRules("mysql", keys_in_create=True, table_suffix=" ENGINE=InnoDB")


@dataclass(frozen=True)
class MySqlOptions(AlchemyOptions):
    """The kit's options; every other query option goes into the SQLAlchemy URL."""

    indexes: bool = True
    load: Literal["file", "insert"] = "file"  # LOAD DATA LOCAL INFILE, or executemany


_CSV = pacsv.WriteOptions(include_header=False, delimiter="|", quoting_style="needed")
_LOST = {2003, 2006, 2013, 4031, 1927}  # can't connect, gone away, lost, timed out, killed
_INTERRUPTED = 1317


class MySqlSession(AlchemySession):
    def explain_sql(self, sql: str, analyze: bool) -> str:
        """MariaDB's ``ANALYZE <statement>`` runs it and adds the rows it really read."""
        return ("ANALYZE " if analyze else "EXPLAIN ") + sql

    def __init__(self, engine: SqlAlchemyEngine, conn: Any) -> None:
        super().__init__(engine, conn)
        self.alchemy = engine
        self.thread_id = int(self.query("SELECT CONNECTION_ID()").rows[0][0])
        self.cancelled = False

    def backend_thread(self) -> int | None:
        """The server's OS thread serving this connection (MariaDB's ``PROCESSLIST.TID``;
        one thread per connection): o2c counts only these threads' CPU. None where the
        server does not say (MySQL's processlist has no TID) or a thread pool shares them."""
        out = self.query("SELECT * FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
        cols = [c.upper() for c in out.columns]
        if "TID" not in cols or not out.rows:
            return None
        pooled = self.query("SELECT @@thread_handling").rows[0][0]
        if str(pooled) != "one-thread-per-connection":
            return None  # pool-of-threads: a thread serves many connections in turn
        tid = out.rows[0][cols.index("TID")]
        return int(tid) if tid else None

    def query(self, sql: str) -> QueryOutput:
        """Functions such as SLEEP() return early, without an error, when killed: a cancel
        that arrived during the statement still makes it a cancelled query."""
        self.cancelled = False
        out = super().query(sql)
        if self.cancelled:
            self.cancelled = False
            raise QueryCancelledError(f"query cancelled on {self.policy.url.render()}")
        return out

    def cancel(self) -> None:
        """KILL QUERY from a connection of its own: the session's is busy."""
        self.cancelled = True
        killer = AlchemySession(self.alchemy, self.alchemy.raw())
        try:
            killer.execute(f"KILL QUERY {self.thread_id}")
        finally:
            killer.close()

    def load_file(self, table: str, data: pa.Table | pa.RecordBatch) -> None:
        with tempfile.NamedTemporaryFile(suffix=".csv", prefix=f"dbbench-{table}-") as tmp:
            pacsv.write_csv(data, tmp.name, _CSV)
            path = tmp.name.replace("\\", "/")
            columns = ", ".join(TABLES[table].column_names)
            self.cursor().execute(
                f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE {table} CHARACTER SET utf8mb4 "
                "FIELDS TERMINATED BY '|' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' "
                f"LINES TERMINATED BY '\\n' ({columns})"
            )


def _lost(exc: BaseException) -> bool:
    if isinstance(exc, sa.exc.DBAPIError):
        exc = exc.orig or exc
    if isinstance(exc, pymysql.err.InterfaceError):
        return True
    return isinstance(exc, pymysql.err.OperationalError) and _code(exc) in _LOST


def _cancelled(exc: BaseException) -> bool:
    if isinstance(exc, sa.exc.DBAPIError):
        exc = exc.orig or exc
    return isinstance(exc, pymysql.err.OperationalError) and _code(exc) == _INTERRUPTED


def _code(exc: BaseException) -> int:
    return int(exc.args[0]) if exc.args and isinstance(exc.args[0], int) else 0


class MySqlEngine(SqlAlchemyEngine):
    name: ClassVar[str] = "mysql"
    dialect: ClassVar[str] = "mysql"
    facts: ClassVar[EngineFacts] = EngineFacts(
        lock_read=" FOR UPDATE",  # REPEATABLE READ: the ACID Transaction locks what it reads
        bytes_per_sf=1.4 * (1 << 30),  # measured at SF 1: tables and keys
        server_processes=("mariadbd", "mysqld"),
        display_name="MySQL",
        hammerdb_db="mysql",
        connections_sql=(  # (max connections, reserved, connections open now)
            "SELECT @@max_connections, 0, (SELECT VARIABLE_VALUE FROM "
            "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED')"
        ),
        preflight=(
            SettingRule(
                "innodb_buffer_pool_size",
                "is smaller than {db}: InnoDB will read from disk; give it the database "
                "plus room (e.g. 50-75 % of RAM)",
            ),
        ),
    )
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True, cancel=True, storage_size=True
    )
    session_class: ClassVar[type[SqlSession]] = MySqlSession
    disclosed: ClassVar[DisclosedSettings] = DisclosedSettings(
        "SHOW VARIABLES WHERE Variable_name IN ({names})",
        (
            "innodb_buffer_pool_size",
            "innodb_flush_log_at_trx_commit",
            "innodb_log_file_size",
            "tmp_table_size",
            "max_heap_table_size",
            "join_buffer_size",
            "sort_buffer_size",
        ),
    )
    #: information_schema spans every database of the server: this one's only
    views_sql: ClassVar[str] = (
        "SELECT table_name FROM information_schema.views WHERE table_schema = DATABASE()"
    )
    #: MariaDB: every variable set by the configuration, the command line or SQL (a URL's
    #: ``init_command``), less paths and what the driver sets on connecting
    changed_sql: ClassVar[str] = (
        "SELECT LOWER(VARIABLE_NAME), COALESCE(SESSION_VALUE, GLOBAL_VALUE) "
        "FROM information_schema.SYSTEM_VARIABLES "
        "WHERE (GLOBAL_VALUE_ORIGIN IN ('CONFIG', 'COMMAND-LINE', 'SQL', 'ENVIRONMENT') "
        "OR (SESSION_VALUE IS NOT NULL AND SESSION_VALUE <> GLOBAL_VALUE)) "
        "AND LOWER(VARIABLE_NAME) NOT IN ({names}) ORDER BY 1"
    )
    driver_set: ClassVar[tuple[str, ...]] = (
        "basedir", "bind_address", "datadir", "log_error", "pid_file", "port", "socket",
        "character_set_client", "character_set_connection", "character_set_results",
        "collation_connection", "autocommit", "sql_mode", "timestamp", "pseudo_thread_id",
        "last_insert_id", "insert_id", "rand_seed1", "rand_seed2", "identity",
    )  # fmt: skip

    def settings(self) -> dict[str, str]:
        """The disclosed variables, then (MariaDB) every other one not at its default."""
        found = super().settings()
        try:
            changed = self.settings_from(self.changed_sql, self.driver_set)
        except Exception:  # MySQL has no SYSTEM_VARIABLES table: the disclosed list alone
            return found
        for name, value in changed.items():
            found.setdefault(name, value)
        return found

    def __init__(self, url: EngineURL) -> None:
        charset = url.query.get("charset")
        if charset is not None and pymysql.charset.charset_by_name(charset) is None:
            # PyMySQL itself fails with an AttributeError on an unknown one
            raise DriversError(f"engine option charset={charset!r} is not a MySQL character set")
        options = MySqlOptions.from_url(url)
        self.load_mode = options.load
        target = sa_url(url, MySqlOptions, f"{url.scheme}+{url.driver or 'pymysql'}")
        super().__init__(url, target, options, connect_args={"local_infile": True})
        self._locked = False  # holds the benchmark lock (see lock_benchmark, close)

    def make_policy(self, url: EngineURL, errors: tuple[type[BaseException], ...]) -> ErrorPolicy:
        return ErrorPolicy(url, (*errors, pymysql.err.Error), _lost, _cancelled)

    def lock_benchmark(self) -> None:
        """A named lock per database on the admin connection, held until close()."""
        name = "CONCAT('dbbench.', DATABASE())"
        with self.policy.guard("lock"):
            if self.admin().query(f"SELECT GET_LOCK({name}, 0)").rows[0][0] == 1:
                self._locked = True
                return
            holder = self.admin().query(f"SELECT IS_USED_LOCK({name})").rows[0][0]
        raise DriversError(
            f"another dbbench run is using database {self.url.database or '(default)'} "
            f"(MariaDB/MySQL connection {holder} holds its benchmark lock); wait for it to end"
        )

    def close(self) -> None:
        """Releases the benchmark lock before the connection goes, so that a run started
        right after this one ends never finds it still held by a closing connection."""
        if self._locked:
            self._locked = False
            # bounded: a connection a signal cut mid-query must not hold the exit (closing
            # it releases the lock too, only later)
            admin = self.admin()
            within(2.0, lambda: admin.query("SELECT RELEASE_LOCK(CONCAT('dbbench.', DATABASE()))"))
        super().close()

    def make_ddl_rules(self) -> ddl.DdlRules:
        return DDL

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        if self.load_mode == "insert":
            return super().load_table(table, batches)
        session = MySqlSession(self, self.raw())
        rows = 0
        try:
            with self.policy.guard(f"load {table}"):
                for batch in batches:
                    session.load_file(table, batch)
                    rows += batch.num_rows
        finally:
            session.close()
        return rows

    def finish_load(self) -> dict[str, float]:
        steps: dict[str, float] = {}
        cur = self.admin().cursor()
        with self.policy.guard("finish load"):
            if self.indexes:
                steps["indexes"] = _timed(cur, _index_statements())
            if self.keys:
                cur.execute("SET SESSION foreign_key_checks = 0")
                steps["foreign_keys"] = _timed(cur, ddl.add_foreign_keys())
                cur.execute("SET SESSION foreign_key_checks = 1")
            steps["analyze"] = _timed(cur, [f"ANALYZE TABLE {', '.join(TABLES)}"])
        return steps

    def version(self) -> str:
        text = str(self.admin().query("SELECT VERSION()").rows[0][0])
        return f"MariaDB {text}" if "mariadb" in text.lower() else f"MySQL {text}"

    def server_identity(self) -> str:
        """Which server this is: its host name and port as the server itself says them
        (MariaDB has no server UUID; o2c refuses two URLs of one server in one line)."""
        row = self.admin().query("SELECT @@hostname, @@port").rows[0]
        return f"mysql server {row[0]}:{row[1]}"

    def place(self) -> str:
        """The database, host and port (or socket) and user the driver reached: a URL
        with no host is PyMySQL's ``localhost:3306``, one with no database none at all."""
        with self.policy.guard("place"):
            database, user = self.admin().query("SELECT DATABASE(), CURRENT_USER()").rows[0]
        conn = getattr(self.admin(), "conn", None)
        socket = getattr(conn, "unix_socket", None)
        host, port = getattr(conn, "host", None), getattr(conn, "port", None)
        via = f"socket {socket}" if socket else f"{host}:{port}"
        named = "no database" if database is None else f"database {str(database)!r}"
        return f"{named} on {via} as user {str(user)!r}"

    def storage_bytes(self) -> int | None:
        sql = (
            "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "
            "WHERE table_schema = DATABASE()"
        )
        with self.policy.guard("storage size"):
            return int(self.admin().query(sql).rows[0][0])


def _index_statements() -> list[str]:
    """One ALTER per table, so InnoDB builds all of a table's indexes in one pass."""
    per_table: dict[str, list[str]] = {}
    for table, cols in ddl.index_columns():
        per_table.setdefault(table, []).append(
            f"ADD INDEX ix_{table}_{'_'.join(cols)} ({', '.join(cols)})"
        )
    return [f"ALTER TABLE {t} {', '.join(adds)}" for t, adds in per_table.items()]


def _timed(cur: Any, statements: list[str]) -> float:
    start = time.perf_counter()
    for sql in statements:
        cur.execute(sql)
        if cur.description:
            cur.fetchall()  # ANALYZE TABLE returns a status row per table
    return time.perf_counter() - start


def connect(url: EngineURL) -> MySqlEngine:
    """The registry's entry point for ``mysql://`` and ``mariadb://`` URLs."""
    return MySqlEngine(url)
