"""Sail (``pysail``): a Spark Connect server written in Rust on Apache DataFusion, driven
through PySpark's Spark Connect client like the ``spark`` engine's ``sc://`` URLs.

URLs (the path is the warehouse folder, which the server must see at the same path):

* ``sail``: a Sail server started in this process on a free loopback port, stopped at close;
  its warehouse is a private temporary folder, removed at close (``sail:///folder`` keeps
  one);
* ``sail://host:50051/folder``: a Sail server running elsewhere;
* ``sc://host:port/folder``: a Spark Connect URL whose server answers as Sail (its catalog
  is ``sail``) is served by this engine (:func:`answers_as_sail`, asked by the ``spark``
  engine's ``connect``).

How it differs from Spark's ``sc://`` path, each because of what Sail 0.7 does:

* **Tables are Delta Lake tables** in the warehouse: Sail has no ``REFRESH TABLE``, no
  ``_metadata.file_path`` nor ``input_file_name()``, so Spark's file swaps cannot be done;
  Delta gives SQL DML instead.
* **Load**: dbbench's generator runs inside the server as ``mapInArrow`` tasks (Sail runs
  Python UDFs in its own interpreter, which must import dbbench), written as Delta tables
  (no row passes through this process). Sail has no ``ANALYZE TABLE``; the Delta log's
  per-file statistics are what its planner has.
* **Reload**: a Delta overwrite only marks the old files removed, and Sail has no
  ``VACUUM``; so a load into a warehouse that has tables deletes their folders first and
  makes them again empty, where this machine sees the server's warehouse (a server in this
  process, or one that reads a file written here into the warehouse folder). Elsewhere the
  old versions' files stay on the server's disk; the storage size counts only the current
  ones (or is not known).
* **Refresh functions** are SQL DML on Delta: RF1 appends the new rows
  (``DataFrameWriterV2.append``), RF2 is ``MERGE INTO ... WHEN MATCHED THEN DELETE`` on the
  keys (Sail's ``DELETE`` takes no subquery). Each is one Delta commit per table; the two
  tables' commits are made under the engine's lock, which waits for running queries and
  holds new ones back, so a query sees a refresh entirely or not at all.
* **Catalogs are per session** in Sail: every session registers the tables over their
  folders before its first query.
* **Cancel** is Spark Connect's ``interruptTag``; Sail then answers the interrupted
  operation with "operation not found".
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import EngineFacts, EngineSpec
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.spark_cluster import ReadWriteLock
from dbbench.drivers.engines.spark_engine import (
    STATE_TABLE,
    SparkEngine,
    SparkQuerySession,
    _columns,
)
from dbbench.drivers.engines.spark_files import local_path
from dbbench.drivers.engines.spark_launch import (
    connect_session,
    quiet_client_logs,
    require_reachable,
    stop_connect,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.open_sessions import OpenSessions
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, parse_url

ENGINE = EngineSpec(
    name="sail",
    url_form="sail (a server in this process) | sail://host:50051/warehouse | "
    "sc://host:port/warehouse (a Sail server)",
    requires=("pyspark", "pandas", "pysail"),
    install="pip install 'dbbench[sail]'",
)

#: Sail's own default port (``sail spark server``).
DEFAULT_PORT = 50051
REFRESH_METHOD = (
    "Delta Lake DML: RF1 appends the new rows, RF2 is MERGE ... WHEN MATCHED THEN DELETE; "
    "each commits under a lock that waits for running queries"
)


@dataclass(frozen=True)
class SailOptions(EngineOptions):
    """The kit's options for Sail."""

    warehouse: str = ""  # a folder the server sees; default: the URL's path
    reconnect_wait: int = 30  # seconds the client retries a server that went away


def _errors() -> tuple[type[BaseException], ...]:
    from pyspark.errors import PySparkException

    return (PySparkException,)


def _lost(exc: BaseException) -> bool:
    text = str(exc)
    return "StatusCode.UNAVAILABLE" in text or "is not running" in text


def _cancelled(exc: BaseException) -> bool:
    """Sail ends an interrupted operation; the client's next call on it finds it gone."""
    text = str(exc)
    return "OPERATION_CANCELED" in text or "operation not found" in text


def answers_as_sail(url: EngineURL) -> bool:
    """Whether the Spark Connect server of an ``sc://`` URL is Sail (its catalog is named
    ``sail``; Spark's is ``spark_catalog``). An unreachable server is one line here."""
    require_reachable(url)
    quiet_client_logs()
    options = SailOptions.from_url(url)
    try:
        spark = connect_session(f"sc://{url.host}:{url.port or 15002}", options.reconnect_wait)
    except _errors():
        return False
    try:
        return bool(spark.sql("SELECT current_catalog()").collect()[0][0] == "sail")
    except _errors():
        return False
    finally:
        stop_connect(spark)


def delta_table_bytes(folder: Path) -> int | None:
    """``tableSizeBytes`` of a Delta table's latest version checksum (``_delta_log/N.crc``);
    None when the latest commit has no checksum file."""
    log = folder / "_delta_log"
    commits = sorted(log.glob("*.json")) if log.is_dir() else []
    if not commits:
        return None
    checksum = commits[-1].with_suffix(".crc")
    try:
        return int(json.loads(checksum.read_text(encoding="utf-8"))["tableSizeBytes"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class LocalServer:
    """A Sail server in this process on a free loopback port."""

    def __init__(self) -> None:
        from pysail.spark import SparkConnectServer

        # Sail logs every session at INFO on stderr (read when its first server starts);
        # dbbench's output stays one line per problem unless RUST_LOG says otherwise
        os.environ.setdefault("RUST_LOG", "error")
        self.server = SparkConnectServer("127.0.0.1", 0)
        self.server.start(background=True)
        host, port = self.server.listening_address
        self.address = f"sc://{host}:{port}"

    def stop(self) -> None:
        self.server.stop()


class SailQuerySession(SparkQuerySession):
    """A Spark Connect session of its own on the Sail server (its own catalog, tables
    registered on opening); the refresh functions are Delta DML."""

    engine: SailEngine

    def refresh_insert(self, orders: pa.Table, lineitem: pa.Table) -> int:
        with self.policy.guard("RF1"):
            self._tag()
            frames = [
                (t, self.spark.createDataFrame(d.cast(TABLES[t].arrow_schema)))
                for t, d in (("orders", orders), ("lineitem", lineitem))
            ]
            with self.engine.writing():
                for table, frame in frames:
                    frame.writeTo(table).append()
        return int(orders.num_rows + lineitem.num_rows)

    def refresh_delete(self, orderkeys: Sequence[int]) -> int:
        with self.policy.guard("RF2"):
            self._tag()
            keys = pa.table({"k": pa.array(orderkeys, pa.int64())})
            view = f"dbbench_rf2_{uuid.uuid4().hex[:12]}"
            self.spark.createDataFrame(keys).createOrReplaceTempView(view)
            deleted = 0
            try:
                with self.engine.writing():
                    for table, column in (("lineitem", "l_orderkey"), ("orders", "o_orderkey")):
                        before = self._count(table)
                        self.spark.sql(
                            f"MERGE INTO {table} USING {view} ON {table}.{column} = {view}.k "
                            "WHEN MATCHED THEN DELETE"
                        ).collect()
                        deleted += before - self._count(table)
            finally:
                self.spark.catalog.dropTempView(view)
        return deleted

    def _count(self, table: str) -> int:
        return int(self.spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0])


class SailEngine(SparkEngine):
    """Delta Lake tables in a warehouse folder, queried through a Sail server."""

    name: ClassVar[str] = "sail"
    # Spark's dialect and capabilities hold (parallel load: one generation job per table, side
    # by side); its facts but the name: Delta commits one statement at a time, so there is no
    # multi-statement transaction either (o2c refuses it)
    facts: ClassVar[EngineFacts] = replace(SparkEngine.facts, display_name="Sail")
    session_class: ClassVar[type[SparkQuerySession]] = SailQuerySession

    @classmethod
    def in_run_dir(cls, url: EngineURL, folder: Path) -> EngineURL:
        """As given: with no warehouse, Sail's is a private temporary folder already."""
        return url

    def __init__(self, url: EngineURL) -> None:  # Spark's set-up does not apply: no super()
        self.url = url
        self.policy = ErrorPolicy(url, _errors(), lost=_lost, cancelled=_cancelled)
        self.classic = False
        self.sail_options = SailOptions.from_url(url)
        self.analyze = False  # Sail has no ANALYZE TABLE
        self._readers = ReadWriteLock()
        self._sessions: OpenSessions[SparkQuerySession] = OpenSessions()
        self._closed = False
        self._files = None
        self._server: LocalServer | None = None
        self._own_warehouse: str | None = None
        self._sees: bool | None = None  # whether this machine sees the server's warehouse
        self.warehouse = self._warehouse(url)
        self.database = "dbbench_" + hashlib.sha1(self.warehouse.encode()).hexdigest()[:12]
        quiet_client_logs()
        try:
            if url.host:
                require_reachable(parse_url(f"sc://{url.host}:{url.port or DEFAULT_PORT}"))
                self.master = f"sc://{url.host}:{url.port or DEFAULT_PORT}"
            else:
                with self.policy.guard("start Sail"):
                    self._server = LocalServer()
                self.master = self._server.address
            with self.policy.guard("connect"):
                self.spark = connect_session(self.master, self.sail_options.reconnect_wait)
            with self.policy.guard("register tables"):
                self._register_in(self.spark)
        except BaseException:
            self.close()
            raise

    def _warehouse(self, url: EngineURL) -> str:
        where = self.sail_options.warehouse or url.database or ""
        if not where:
            if url.host:
                where = "sail-warehouse"
            else:
                where = self._own_warehouse = tempfile.mkdtemp(prefix="dbbench-sail-")
        if "://" in where:
            return where.rstrip("/")
        return "file://" + os.path.abspath(where)

    # -- sessions -----------------------------------------------------------------------
    def _register_in(self, spark: Any) -> None:
        """Sail's catalog is the session's own: the tables over their Delta folders."""
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {self.database}")
        spark.catalog.setCurrentDatabase(self.database)
        for table in (*TABLES, STATE_TABLE):
            self._create_table(spark, table)

    def _create_table(self, spark: Any, table: str) -> None:
        """The table in the session's catalog; an empty Delta table of the declared schema
        where its folder has none (a load's overwrite keeps that schema)."""
        spark.sql(
            f"CREATE TABLE IF NOT EXISTS {table} ({_columns(table)}) "
            f"USING delta LOCATION '{self.location(table)}'"
        )

    def _open_spark(self) -> Any:
        spark = connect_session(self.master, self.sail_options.reconnect_wait)
        self._register_in(spark)
        return spark

    def writing(self) -> Any:
        """The refresh functions' commits: no query runs meanwhile."""
        return self._readers.exclusive()

    # -- load -----------------------------------------------------------------------------
    def create_schema(self) -> None:
        """A reload starts from empty tables: a Delta overwrite would keep every earlier
        version's files (Sail has no ``VACUUM``), so the table folders are deleted and made
        again, where this machine sees the server's warehouse. Other sessions' catalog
        entries name the same folders and read the new tables."""
        folders = {t: local_path(self.location(t)) for t in (*TABLES, STATE_TABLE)}
        if any(f is not None and f.exists() for f in folders.values()) and self._sees_warehouse():
            with self.policy.guard("create schema"):
                for table, folder in folders.items():
                    self.spark.sql(f"DROP TABLE IF EXISTS {table}")
                    if folder is not None:
                        shutil.rmtree(folder, ignore_errors=True)
                    self._create_table(self.spark, table)
        super().create_schema()

    def _sees_warehouse(self) -> bool:
        """Whether this machine sees the warehouse folder the server writes: always for a
        server in this process; else the server must read back a file written here into the
        warehouse folder (a folder at the same path on this machine may be another one)."""
        if self._sees is not None:
            return self._sees
        root = local_path(self.warehouse)
        if root is None or self._server is not None:
            self._sees = root is not None
            return self._sees
        if not root.is_dir():
            return False  # nothing here (yet): asked again once the load has written
        token = uuid.uuid4().hex
        name = f"dbbench-probe-{token}.json"  # Sail skips names starting with _ or .
        probe = root / name
        failures: tuple[type[BaseException], ...] = (OSError, *_errors())
        try:
            probe.write_text(json.dumps({"token": token}) + "\n", encoding="utf-8")
            rows = self.spark.read.json(f"{self.warehouse}/{name}").collect()
            self._sees = [tuple(r) for r in rows] == [(token,)]
        except failures:
            self._sees = False
        finally:
            probe.unlink(missing_ok=True)
        return self._sees

    def store_generated(self, table: str, frame: Any) -> None:
        frame.write.format("delta").mode("overwrite").save(self.location(table))

    def finish_load(self) -> dict[str, float]:
        return {}  # no ANALYZE in Sail; Delta's file statistics are written with the data

    def generate_files(self, options: Any) -> Any:
        raise DriversError("gen on sail is not supported: use dbbench gen, or a spark:// engine")

    # -- bookkeeping ------------------------------------------------------------------------
    def read_state(self) -> dict[str, str]:
        with self.policy.guard("read state"):
            rows = self.spark.table(STATE_TABLE).collect()
        return {str(r[0]): str(r[1]) for r in rows}

    def _write_state_rows(self, state: dict[str, str]) -> None:
        data = pa.table(
            {
                "state_key": pa.array(list(state), pa.string()),
                "state_value": pa.array(list(state.values()), pa.string()),
            }
        )
        frame = self.spark.createDataFrame(data, schema=_columns(STATE_TABLE))
        frame.write.format("delta").mode("overwrite").save(self.location(STATE_TABLE))

    # -- disclosure -------------------------------------------------------------------------
    def version(self) -> str:
        with self.policy.guard("version"):
            sail = str(self.spark.sql("SELECT version()").collect()[0][0])
        return f"Sail {sail} (Spark Connect, PySpark {self.spark.version} client)"

    def settings(self) -> dict[str, str]:
        found = {
            "server": self.master + (" (in this process)" if self._server else ""),
            "warehouse": self.warehouse,
            "tables": "Delta Lake",
            "refresh": REFRESH_METHOD,
            "statistics": "none gathered (Sail has no ANALYZE TABLE)",
        }
        for name in ("spark.sql.shuffle.partitions", "spark.sql.session.timeZone"):
            value = self.spark.conf.get(name, None)
            if value is not None:
                found[name] = str(value)
        return found

    def storage_bytes(self) -> int | None:
        """The bytes of the tables' current files (older Delta versions' files not counted)
        as each table's latest Delta checksum file gives them, where this machine sees the
        warehouse; None otherwise."""
        if not self._sees_warehouse():
            return None
        total = 0
        for table in TABLES:
            folder = local_path(self.location(table))
            size = delta_table_bytes(folder) if folder is not None else None
            if size is None:
                return None
            total += size
        return total

    def _release(self) -> None:
        """The local server this engine started and the warehouse it made."""
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._own_warehouse:
            shutil.rmtree(self._own_warehouse, ignore_errors=True)


def connect(url: EngineURL) -> SailEngine:
    """The registry's entry point for ``sail`` URLs (``sc://`` ones come through the
    ``spark`` engine's :func:`~dbbench.drivers.engines.spark.connect`)."""
    return SailEngine(url)
