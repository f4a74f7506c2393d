"""The Spark engine itself (its sessions, the refresh functions' staging and swap); its
declaration and ``connect`` are :mod:`dbbench.drivers.engines.spark`, which routes a Sail
server's ``sc://`` URL to :mod:`~dbbench.drivers.engines.sail` (which builds on this module:
importing it never imports Sail, so the two form no circle).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

from dbbench.dbgen.schema import TABLES, Kind
from dbbench.drivers.engine import (
    Capabilities,
    Engine,
    EngineFacts,
    QueryOutput,
    Session,
)
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.spark_cluster import ReadWriteLock
from dbbench.drivers.engines.spark_files import HadoopFiles, LocalFiles, TableFiles
from dbbench.drivers.engines.spark_generate import SparkGeneration
from dbbench.drivers.engines.spark_launch import (
    DEFAULT_WAREHOUSE,
    connect_session,
    driver_log,
    release,
    spark_master,
    start,
    stop_connect,
    warehouse_of,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.open_sessions import OpenSessions
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class SparkOptions(EngineOptions):
    """The kit's options; those starting with ``spark.`` are Spark settings."""

    warehouse: str = ""  # any Hadoop URI; default: the URL's path, or ./spark-warehouse
    python: str = ""  # the executors' interpreter; default: this one
    analyze: bool = True  # column statistics after the load
    executor_wait: int = 120  # seconds a cluster master may take to give us executors
    reconnect_wait: int = 30  # seconds a Connect client retries a server that went away


STATE_TABLE = "dbbench_state"
REFRESH_METHOD = (
    "Parquet files: RF1 appends new files; RF2 rewrites only the files holding deleted keys; "
    "both swap their files in under a lock that waits for running queries"
)

_SQL_TYPES = {
    Kind.IDENTIFIER: "BIGINT",
    Kind.INTEGER: "INT",
    Kind.DECIMAL: "DECIMAL(15,2)",
    Kind.CHAR: "STRING",
    Kind.VARCHAR: "STRING",
    Kind.DATE: "DATE",
}


def _errors() -> tuple[type[BaseException], ...]:
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    return (PySparkException, Py4JError)


def _lost(exc: BaseException) -> bool:
    from py4j.protocol import Py4JNetworkError

    text = str(exc)
    if "StatusCode.UNAVAILABLE" in text:  # Spark Connect: the server went away
        return True
    return isinstance(exc, Py4JNetworkError) or "SparkContext was shut down" in text


def _cancelled(exc: BaseException) -> bool:
    text = str(exc)
    if "OPERATION_CANCELED" in text:  # Spark Connect: interruptTag
        return True
    return "cancelled" in text and ("Job group" in text or "job group" in text)


class SparkQuerySession(Session):
    """A Spark session of its own (temporary views, settings), its own scheduler pool and
    job group, sharing the engine's SparkContext: streams run as concurrent Spark jobs."""

    def __init__(self, engine: SparkEngine, spark: Any, number: int) -> None:
        self.engine = engine
        self.spark = spark
        self.group = f"dbbench-{uuid.uuid4().hex[:12]}"
        self.pool = f"stream{number}"
        self.policy = engine.policy

    def _tag(self) -> None:
        """Scheduler pool and job group (Connect: an operation tag) are thread-local: set
        them in the calling thread."""
        if self.engine.classic:
            sc = self.spark.sparkContext
            sc.setLocalProperty("spark.scheduler.pool", self.pool)
            sc.setJobGroup(self.group, "dbbench", interruptOnCancel=True)
        else:
            self.spark.addTag(self.group)

    def execute(self, sql: str) -> None:
        with self.policy.guard("statement"), self.engine.reading():
            self._tag()
            self.spark.sql(sql).collect()

    def query(self, sql: str) -> QueryOutput:
        with self.policy.guard("query"), self.engine.reading():
            self._tag()
            frame = self.spark.sql(sql)
            rows = [tuple(r) for r in frame.collect()]
            return QueryOutput(list(frame.columns), rows)

    def explain(self, sql: str, analyze: bool = False) -> str:
        """``EXPLAIN FORMATTED`` (Spark SQL has no executed plan: ``analyze`` gives the
        same, with the optimizer's statistics: ``EXPLAIN COST``)."""
        out = self.query(("EXPLAIN COST " if analyze else "EXPLAIN FORMATTED ") + sql)
        return "\n".join(str(row[-1]).rstrip("\n") for row in out.rows)

    def cancel(self) -> None:
        if self.engine.classic:
            self.spark.sparkContext.cancelJobGroup(self.group)
        else:
            self.spark.interruptTag(self.group)

    def refresh_insert(self, orders: pa.Table, lineitem: pa.Table) -> int:
        with self.policy.guard("RF1"):
            self._tag()
            staged = [
                self.engine.stage_rows(t, d)
                for t, d in (("orders", orders), ("lineitem", lineitem))
            ]
            self.engine.swap(staged)
        return int(orders.num_rows + lineitem.num_rows)

    def refresh_delete(self, orderkeys: Sequence[int]) -> int:
        with self.policy.guard("RF2"):
            self._tag()
            keys = pa.table({"k": pa.array(orderkeys, pa.int64())})
            keys = self.engine.spark.createDataFrame(keys)  # the session the scans run in
            staged = [self.engine.stage_delete(t, c, keys) for t, c in _KEYED]
            self.engine.swap([(t, files, replaced) for t, files, replaced, _ in staged])
        return sum(n for *_, n in staged)

    def close(self) -> None:
        self.engine.forget(self)
        if not self.engine.classic:
            stop_connect(self.spark)


_KEYED = (("lineitem", "l_orderkey"), ("orders", "o_orderkey"))


class SparkEngine(SparkGeneration, Engine):
    """Spark SQL on Parquet tables in a warehouse folder.

    Over Spark Connect (``sc://``) the session has no JVM handle: the refresh functions move
    files through this machine's file system, so they need a ``file://`` warehouse that this
    machine sees as the server does; ``gen`` on the cluster needs a classic driver."""

    name: ClassVar[str] = "spark"
    dialect: ClassVar[str] = "spark"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,  # one Spark job per table, side by side under the FAIR scheduler
        cancel=True,
        storage_size=True,
    )
    # plain Parquet: no multi-statement transaction with UPDATE and DELETE (o2c refuses it)
    facts: ClassVar[EngineFacts] = EngineFacts(transactional=False, display_name="Spark")
    #: what :meth:`session` hands out
    session_class: ClassVar[type[SparkQuerySession]] = SparkQuerySession

    @classmethod
    def in_run_dir(cls, url: EngineURL, folder: Path) -> EngineURL:
        """A URL that names no warehouse gets ``spark-warehouse`` in the run directory (it
        was the working folder's, left behind by every run)."""
        if url.query.get("warehouse") or url.database:
            return url
        return url.with_options(warehouse=f"file://{(folder / DEFAULT_WAREHOUSE).resolve()}")

    def __init__(self, url: EngineURL) -> None:
        self.url = url
        self.policy = ErrorPolicy(url, _errors(), lost=_lost, cancelled=_cancelled)
        self.classic = url.scheme != "sc"
        self.master = spark_master(url)
        self.warehouse = warehouse_of(url)
        self.options = SparkOptions.from_url(url)
        self.analyze = self.options.analyze
        self._readers = ReadWriteLock()
        self._sessions: OpenSessions[SparkQuerySession] = OpenSessions()
        self.database = "dbbench_" + hashlib.sha1(self.warehouse.encode()).hexdigest()[:12]
        opts = self.options
        root = start(url, self.master, self.policy, opts.executor_wait, opts.reconnect_wait)
        self.spark = root.newSession() if self.classic else root  # this engine's own
        self._apply_sql_settings(self.spark)
        self._closed = False
        self._files: TableFiles | None = None
        with self.policy.guard("register tables"):
            self._register()

    # -- the Spark session (started by spark_launch) -------------------------------------
    def _register(self) -> None:
        """Catalog entries over the table folders, in a database of this warehouse's own
        (the session catalog lives in memory, so a warehouse loaded by an earlier process
        is found again here; two warehouses in one process do not mix)."""
        self.spark.sql(f"CREATE DATABASE IF NOT EXISTS {self.database}")
        self.spark.catalog.setCurrentDatabase(self.database)
        for table in (*TABLES, STATE_TABLE):
            self.spark.sql(
                f"CREATE TABLE IF NOT EXISTS {table} ({_columns(table)}) "
                f"USING parquet LOCATION '{self.location(table)}'"
            )

    def _apply_sql_settings(self, spark: Any) -> None:
        """``spark.sql.*`` options of the URL hold in every session, even when this process's
        SparkContext was started earlier by another engine."""
        for key, value in self.url.query.items():
            if key.startswith("spark.sql.") and spark.conf.isModifiable(key):
                spark.conf.set(key, value)

    def location(self, table: str) -> str:
        return f"{self.warehouse}/{table}"

    def session(self) -> SparkQuerySession:
        number = self._sessions.next_number()
        with self.policy.guard("connect"):
            spark = self._open_spark()
        return self._sessions.add(self.session_class(self, spark, number))

    def _open_spark(self) -> Any:
        """A new Spark session over this engine's tables, its SQL settings applied."""
        if self.classic:
            spark = self.spark.newSession()
        else:
            spark = connect_session(self.master, self.options.reconnect_wait)
        spark.catalog.setCurrentDatabase(self.database)
        self._apply_sql_settings(spark)
        return spark

    def forget(self, session: SparkQuerySession) -> None:
        self._sessions.discard(session)

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._readers.shared():
            yield

    # -- load -----------------------------------------------------------------------------
    def create_schema(self) -> None:
        """The tables are (re)written whole by the load; only the bookkeeping is reset."""
        with self.policy.guard("create schema"):
            self._write_state_rows({})

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        raise DriversError("the spark engine generates its data on the cluster (no batch load)")

    def finish_load(self) -> dict[str, float]:
        steps: dict[str, float] = {}
        if not self.analyze:
            return steps
        start = time.perf_counter()
        with self.policy.guard("analyze"), ThreadPoolExecutor(max_workers=len(TABLES)) as pool:
            sql = "ANALYZE TABLE {} COMPUTE STATISTICS FOR ALL COLUMNS"
            for future in [pool.submit(self.spark.sql, sql.format(t)) for t in TABLES]:
                future.result()
        steps["analyze"] = time.perf_counter() - start
        return steps

    def row_counts(self) -> dict[str, int]:
        sql = " UNION ALL ".join(f"SELECT '{t}', COUNT(*) FROM {t}" for t in TABLES)
        with self.policy.guard("row counts"), self.reading():
            counts = {str(r[0]): int(r[1]) for r in self.spark.sql(sql).collect()}
        return {t: counts[t] for t in TABLES}

    # -- bookkeeping ------------------------------------------------------------------------
    def read_state(self) -> dict[str, str]:
        with self.policy.guard("read state"):
            self.spark.catalog.refreshTable(STATE_TABLE)
            rows = self.spark.table(STATE_TABLE).collect()
        return {str(r[0]): str(r[1]) for r in rows}

    def write_state(self, values: dict[str, str]) -> None:
        with self.policy.guard("write state"):
            self._write_state_rows({**self.read_state(), **values})

    def _write_state_rows(self, state: dict[str, str]) -> None:
        """Collected first, then written: a Parquet folder cannot be read and overwritten in
        one job."""
        data = pa.table(
            {
                "state_key": pa.array(list(state), pa.string()),
                "state_value": pa.array(list(state.values()), pa.string()),
            }
        )
        frame = self.spark.createDataFrame(data, schema=_columns(STATE_TABLE))  # may be empty
        frame.coalesce(1).write.mode("overwrite").parquet(self.location(STATE_TABLE))
        self.spark.catalog.refreshTable(STATE_TABLE)

    # -- refresh functions ------------------------------------------------------------------
    def stage_rows(self, table: str, data: pa.Table) -> tuple[str, str, list[str]]:
        """RF1: the new rows as files in a hidden staging folder of the table."""
        staging = f"{self.location(table)}/_staging-{uuid.uuid4().hex}"
        frame = self.spark.createDataFrame(data.cast(TABLES[table].arrow_schema))
        frame.write.parquet(staging)
        return table, staging, []

    def stage_delete(self, table: str, column: str, keys: Any) -> tuple[str, str, list[str], int]:
        """RF2: the files that hold any of the keys, and their other rows in staging."""
        scan = self.spark.table(table).selectExpr("*", "_metadata.file_path AS _file")
        hit = scan.join(keys, scan[column] == keys["k"], "left_semi")
        found = hit.groupBy("_file").count().collect()
        files = [str(r[0]) for r in found]
        deleted = sum(int(r[1]) for r in found)
        staging = f"{self.location(table)}/_staging-{uuid.uuid4().hex}"
        if files:
            kept = self.spark.read.schema(self.spark.table(table).schema).parquet(*files)
            kept = kept.join(keys, kept[column] == keys["k"], "left_anti")
            kept.write.parquet(staging)
        return table, staging, files, deleted

    def files(self) -> TableFiles | None:
        """How this process moves table files: Hadoop's API through a classic driver's JVM;
        over Spark Connect, this machine's file system when it sees the warehouse's files as
        the server lists them (a ``file://`` warehouse on this machine or a shared mount)."""
        if self._files is None:
            if self.classic:
                self._files = HadoopFiles(self.spark)
            elif LocalFiles.sees(self.spark.table("orders").inputFiles()):
                self._files = LocalFiles()
        return self._files

    def swap(self, staged: list[tuple[str, str, list[str]]]) -> None:
        """Move staged files in and replaced files out while no query runs, then make every
        session list the table folders afresh."""
        files = self.files()
        if files is None:
            raise DriversError(
                "refresh functions over Spark Connect need the warehouse as a file:// folder "
                "this machine sees at the server's path (or a classic driver: spark://)"
            )
        with self._readers.exclusive():
            for table, staging, replaced in staged:
                files.move_in(staging, self.location(table))
                for file in replaced:
                    files.delete(file)
            tables = {t for t, _, _ in staged}
            spark_sessions = [self.spark, *(s.spark for s in self._sessions.snapshot())]
            for spark in spark_sessions:
                for table in tables:
                    spark.catalog.refreshTable(table)

    # -- disclosure -------------------------------------------------------------------------
    def version(self) -> str:
        return f"Apache Spark {self.spark.version}"

    def settings(self) -> dict[str, str]:
        found = {"master": self.master, "warehouse": self.warehouse, "refresh": REFRESH_METHOD}
        if self.classic:
            found["driver_log"] = driver_log()
        names = (
            "spark.executor.memory",
            "spark.driver.memory",
            "spark.sql.shuffle.partitions",
            "spark.sql.adaptive.enabled",
            "spark.sql.cbo.enabled",
            "spark.scheduler.mode",
        )
        for name in names:
            value = self.spark.conf.get(name, None)
            if value is not None:
                found[name] = str(value)
        if self.classic:
            found["default_parallelism"] = str(self.spark.sparkContext.defaultParallelism)
        return found

    def storage_bytes(self) -> int | None:
        with self.policy.guard("storage size"):
            files = self.files()
            if files is None:
                return None
            sizes = [files.size(self.location(table)) for table in TABLES]
        return sum(n or 0 for n in sizes)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        sessions = self._sessions.take_all()
        if not self.classic:
            for session in sessions:
                stop_connect(session.spark)
            if getattr(self, "spark", None) is not None:  # None: the set-up failed early
                stop_connect(self.spark)
        self._release()

    def _release(self) -> None:
        """What the engine holds besides its sessions: a classic driver's hold on its
        cluster."""
        if self.classic:
            release(self.master)


def _columns(table: str) -> str:
    if table == STATE_TABLE:
        return "state_key STRING, state_value STRING"
    return ", ".join(f"{c.name} {_SQL_TYPES[c.kind]}" for c in TABLES[table].columns)
