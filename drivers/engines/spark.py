"""Apache Spark: the 22 queries in Spark SQL over typed Parquet, generated on the cluster.

URLs (the path is the warehouse folder; ``//abs/path`` is absolute, ``?warehouse=`` takes any
Hadoop URI such as ``hdfs://...``; without either, ``spark-warehouse`` in the working folder):

* ``spark`` or ``spark://local[N]``: local mode in this process's JVM;
* ``spark://local-cluster[W,C,M]``: W executor JVMs of C cores and M MiB on this machine;
* ``spark://host:7077``: a standalone master;
* ``sc://host:15002``: a Spark Connect server (see :class:`SparkEngine` for its limits).

Query options starting with ``spark.`` are Spark settings; ``python=`` is the interpreter the
executors run (default: this one, which suits every master on this machine).

**Distributed generation.** The load runs dbbench's generator as Spark tasks: task K of a
table makes dbgen part K of N (``table_batches(table, sf, part=K, parts=N)``) as Arrow
batches inside the executor (``mapInArrow``), and Spark writes them as typed Parquet into the
warehouse. No row passes through this process. Tables are registered in the session catalog
over their folders and analysed (``ANALYZE TABLE ... FOR ALL COLUMNS``).

**Refresh functions.** Plain Parquet has no DELETE and no transactions. RF1 writes the new
rows as new files into a hidden staging folder; RF2 finds the files holding the keys to
delete and writes their remaining rows to staging. Then, under a lock that waits for running
queries to finish (and holds new ones back), the staged files move into the table folders,
replaced files are deleted, and every session refreshes its view of the tables. Queries thus
see a set entirely or not at all. The swap is not crash-atomic: a process killed inside it
leaves the tables to be reloaded (the next-update-set counter has already moved on, so a set
is never applied twice). A classic driver moves files through Hadoop's file system API; over
Spark Connect, this process moves them in a ``file://`` warehouse it shares with the server
(:mod:`dbbench.drivers.engines.spark_files`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

from dbbench.dbgen import writer
from dbbench.dbgen.progress import Summary
from dbbench.dbgen.schema import TABLES, Kind
from dbbench.dbgen.writer import GenOptions
from dbbench.drivers.engine import Capabilities, Engine, EngineSpec, QueryOutput, Session
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.spark_files import HadoopFiles, LocalFiles, TableFiles
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL

if TYPE_CHECKING:
    from dbbench.drivers.loader import TableSource

ENGINE = EngineSpec(
    name="spark",
    url_form="spark://local[N] | spark://local-cluster[W,C,M] | spark://host:7077 | sc://host:15002",
    requires=("pyspark", "pandas"),
    install="pip install 'dbbench[spark]'",
    schemes=("sc",),
)


@dataclass(frozen=True)
class SparkOptions(EngineOptions):
    """The kit's options; those starting with ``spark.`` are Spark settings."""

    warehouse: str = ""  # any Hadoop URI; default: the URL's path, or ./spark-warehouse
    python: str = ""  # the executors' interpreter; default: this one
    analyze: bool = True  # column statistics after the load
    executor_wait: int = 120  # seconds a cluster master may take to give us executors
    reconnect_wait: int = 30  # seconds a Connect client retries a server that went away


STATE_TABLE = "dbbench_state"
ROWS_PER_PART = 500_000  # as in the loader: the unit of generation work
SMALL_TABLE_ROWS = 1_000  # tables below this (nation, region) are made by one task
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

_SPARK_LOCK = threading.Lock()
_SPARK_USERS: dict[str, int] = {}  # master -> open engines sharing this process's JVM


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
            _stop_connect(self.spark)


_KEYED = (("lineitem", "l_orderkey"), ("orders", "o_orderkey"))


class SparkEngine(Engine):
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
        distributed_generation=True,
    )

    def __init__(self, url: EngineURL) -> None:
        self.url = url
        self.policy = ErrorPolicy(url, _errors(), lost=_lost, cancelled=_cancelled)
        self.classic = url.scheme != "sc"
        self.master = _master(url)
        self.warehouse = _warehouse(url)
        self.options = SparkOptions.from_url(url)
        self.analyze = self.options.analyze
        self._readers = _ReadWriteLock()
        self._sessions: list[SparkQuerySession] = []
        self._count = 0
        self._lock = threading.Lock()
        self.database = "dbbench_" + hashlib.sha1(self.warehouse.encode()).hexdigest()[:12]
        root = self._start(url)
        self.spark = root.newSession() if self.classic else root  # this engine's own
        self._apply_sql_settings(self.spark)
        self._closed = False
        self._files: TableFiles | None = None
        with self.policy.guard("register tables"):
            self._register()

    # -- the Spark session ----------------------------------------------------------------
    def _start(self, url: EngineURL) -> Any:
        from pyspark.sql import SparkSession

        settings = {k: v for k, v in url.query.items() if k.startswith("spark.")}
        _require_reachable(url)
        _quiet_client_logs()
        if not self.classic:
            with self.policy.guard("connect"):
                builder = SparkSession.builder.remote(self.master)
                for key, value in settings.items():
                    builder = builder.config(key, value)
                with _process_mode_kept():
                    spark = builder.create()  # its own (getOrCreate may give another's)
                _bound_retries(spark, self.options.reconnect_wait)
                return spark
        _require_java()
        os.environ["PYSPARK_PYTHON"] = url.query.get("python") or sys.executable
        defaults = {
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.scheduler.mode": "FAIR",  # concurrent streams share the executors
            "spark.sql.cbo.enabled": "true",  # uses the statistics ANALYZE computes
            "spark.sql.session.timeZone": "UTC",
            # the JVM's own log: errors only, from its start (the kit reports the rest)
            "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={_log_config()}",
        }
        if self.master.startswith("local"):  # the driver talks to itself: loopback only
            defaults["spark.driver.host"] = defaults["spark.driver.bindAddress"] = "127.0.0.1"
        cores = _local_cores(self.master)
        if cores:  # Spark's 200 shuffle partitions suit a cluster, not one machine
            defaults["spark.sql.shuffle.partitions"] = str(max(8, 4 * cores))
        with _SPARK_LOCK:
            from pyspark import SparkContext

            active = SparkContext._active_spark_context
            running = str(active.master) if active is not None else None
            if active is not None and running != self.master:
                if _SPARK_USERS.get(str(running)):
                    raise DriversError(
                        f"this process already runs Spark with master {running}; "
                        f"one master per process (asked for {self.master})"
                    )
                active.stop()
            # PySpark marks the whole process as Spark Connect once a Connect session exists
            # (an environment variable); a classic engine asked for here is classic
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
            builder = SparkSession.builder.master(self.master).appName("dbbench")
            for key, value in {**defaults, **settings}.items():
                builder = builder.config(key, value)
            with self.policy.guard("start Spark"):
                _launch_jvm(self.master, {**defaults, **settings})
                spark = builder.getOrCreate()
                spark.sparkContext.setLogLevel("ERROR")
                _wait_for_executors(spark, self.master, self.options.executor_wait)
            _SPARK_USERS[self.master] = _SPARK_USERS.get(self.master, 0) + 1
        return spark

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
        with self._lock:
            self._count += 1
            number = self._count
        with self.policy.guard("connect"):
            spark = self.spark.newSession() if self.classic else self._connect_session()
            spark.catalog.setCurrentDatabase(self.database)
            self._apply_sql_settings(spark)
        session = SparkQuerySession(self, spark, number)
        with self._lock:
            self._sessions.append(session)
        return session

    def _connect_session(self) -> Any:
        from pyspark.sql import SparkSession

        with _process_mode_kept():
            spark = SparkSession.builder.remote(self.master).create()
        _bound_retries(spark, self.options.reconnect_wait)
        return spark

    def forget(self, session: SparkQuerySession) -> None:
        with self._lock:
            if session in self._sessions:
                self._sessions.remove(session)

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

    def generate_table(self, table: str, sf: float, source: TableSource) -> int:
        """Task K writes dbgen part K of N of the table as Parquet; returns the rows."""
        from pyspark.sql.pandas.types import from_arrow_schema

        from dbbench.dbgen.api import row_count

        rows = int(row_count(table, sf))
        parts = self.parts_for(rows)
        schema = TABLES[table].arrow_schema
        make = _part_maker(source, table, sf, parts, schema)
        with self.policy.guard(f"generate {table}"):
            self._tag_load(table)
            frame = self.spark.range(1, parts + 1, 1, parts).mapInArrow(
                make, from_arrow_schema(schema)
            )
            frame.write.mode("overwrite").parquet(self.location(table))
            self.spark.catalog.refreshTable(table)
            return int(self.spark.table(table).count())

    def generate_files(self, options: GenOptions) -> Summary:
        """``dbbench gen`` as Spark tasks: task K runs exactly what ``dbbench gen --parts N
        --part K`` runs (the same writer, one process) into ``options.out_dir``, which every
        executor must reach (a shared file system). Only each part's summary comes back."""
        if options.part is not None or options.updates:
            raise DriversError("gen on spark writes every part of --parts (no --part, no -U)")
        if not self.classic:
            raise DriversError("gen on spark needs a classic driver, not Spark Connect")
        parts = options.parts if options.parts > 1 else self.spark.sparkContext.defaultParallelism
        parts = max(2, parts)
        writer.plan(replace(options, parts=parts))  # bad options fail here, not in a task
        begin = time.perf_counter()
        with self.policy.guard("gen"):
            self._tag_load("gen")
            tasks = self.spark.sparkContext.parallelize(range(1, parts + 1), parts)
            done = tasks.map(_gen_part(replace(options, parts=parts, jobs=1))).collect()
        return Summary(
            tables=len(options.tables),
            files=sum(d[0] for d in done),
            rows=sum(d[1] for d in done),
            nbytes=sum(d[2] for d in done),
            seconds=time.perf_counter() - begin,
        )

    def parts_for(self, rows: int) -> int:
        if rows < SMALL_TABLE_ROWS:
            return 1
        parallelism = self.spark.sparkContext.defaultParallelism if self.classic else 1
        return max(parallelism, -(-rows // ROWS_PER_PART))

    def _tag_load(self, table: str) -> None:
        if self.classic:
            self.spark.sparkContext.setJobGroup(f"dbbench-load-{table}", f"generate {table}")

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
            with self._lock:
                spark_sessions = [self.spark, *(s.spark for s in self._sessions)]
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
        with self._lock:
            sessions, self._sessions = self._sessions, []
        if not self.classic:
            for session in sessions:
                _stop_connect(session.spark)
            _stop_connect(self.spark)
        if self.classic:
            with _SPARK_LOCK:
                _SPARK_USERS[self.master] = max(0, _SPARK_USERS.get(self.master, 0) - 1)
            # The JVM stays up for the rest of the process (a next engine on the same master
            # reuses it); it ends with the process.


class _ReadWriteLock:
    """Many queries at once, or one file swap; a waiting swap holds new queries back."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False
        self._waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


def _part_maker(source: TableSource, table: str, sf: float, parts: int, schema: pa.Schema) -> Any:
    """The function each task runs: part numbers in, that part's rows out (Arrow)."""

    def make(numbers: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in numbers:
            for part in batch.column(0).to_pylist():
                for out in source.table_batches(table, sf, part=int(part), parts=parts):
                    yield out if out.schema == schema else out.cast(schema)

    return make


def _gen_part(options: GenOptions) -> Any:
    """The function each ``gen`` task runs: one part, all tables, into the shared folder."""

    def run(part: int) -> tuple[int, int, int]:
        from dbbench.dbgen.writer import generate

        summary = generate(replace(options, part=part))
        return summary.files, summary.rows, summary.nbytes

    return run


def _columns(table: str) -> str:
    if table == STATE_TABLE:
        return "state_key STRING, state_value STRING"
    return ", ".join(f"{c.name} {_SQL_TYPES[c.kind]}" for c in TABLES[table].columns)


def _master(url: EngineURL) -> str:
    if url.scheme == "sc":
        if not url.host:
            raise DriversError("a Spark Connect URL needs a host: sc://host:15002")
        return f"sc://{url.host}:{url.port or 15002}"
    host = url.host or "local[*]"
    if host.startswith("local"):
        return host
    return f"spark://{host}:{url.port or 7077}"


def _local_cores(master: str) -> int | None:
    """Cores of an in-process master: local[N], local[*], local-cluster[W,C,M]."""
    inside = master.partition("[")[2].rstrip("]")
    if master == "local":
        return 1
    if master.startswith("local-cluster"):
        workers, cores, *_ = [*inside.split(","), "1", "1"]
        return int(workers) * int(cores) if workers.isdigit() and cores.isdigit() else None
    if master.startswith("local"):
        count = inside.split(",")[0]
        return os.cpu_count() or 1 if count == "*" else int(count) if count.isdigit() else None
    return None


def _warehouse(url: EngineURL) -> str:
    where = url.query.get("warehouse") or url.database or "spark-warehouse"
    if "://" in where or where.startswith("file:"):
        return where.rstrip("/")
    return "file://" + os.path.abspath(where)


def _require_reachable(url: EngineURL) -> None:
    """A standalone master or Connect server that is down: one line now, not a JVM that
    retries for a minute."""
    if url.scheme != "sc" and (not url.host or url.host.startswith("local")):
        return
    host, port = url.host or "", url.port or (15002 if url.scheme == "sc" else 7077)
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        what = "Spark Connect server" if url.scheme == "sc" else "Spark master"
        raise DriversError(f"{what} {host}:{port} is not reachable ({exc})") from None


_LOG4J2 = """\
# dbbench: the Spark driver logs errors only, on stderr
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.console.type = Console
appender.console.name = stderr
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""


def driver_log() -> str:
    """Where this process's driver JVM writes what it prints (its start-up banner and
    warnings, Spark's errors): a file, so that dbbench's own output stays one line per
    problem; named in the engine's disclosed settings."""
    return os.path.join(tempfile.gettempdir(), f"dbbench-spark-driver-{os.getpid()}.log")


def _launch_jvm(master: str, settings: dict[str, str]) -> None:
    """Start this process's driver JVM (once) with its stdout and stderr in
    :func:`driver_log`; PySpark would start it writing to our terminal."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return
    conf = SparkConf(loadDefaults=False).setMaster(master).setAppName("dbbench")
    conf.setAll(list(settings.items()))
    with open(driver_log(), "ab") as log:
        gateway = launch_gateway(conf, popen_kwargs={"stdout": log, "stderr": log})  # type: ignore[no-untyped-call]
    SparkContext._ensure_initialized(gateway=gateway)


def _log_config() -> str:
    """A log4j2 configuration file for the driver JVM, named by its content (one per machine,
    whatever the number of processes; written atomically)."""
    digest = hashlib.sha1(_LOG4J2.encode()).hexdigest()[:10]
    path = os.path.join(tempfile.gettempdir(), f"dbbench-spark-log4j2-{digest}.properties")
    if not os.path.exists(path):
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(_LOG4J2)
        os.replace(temp, path)
    return "file:" + path


def _wait_for_executors(spark: Any, master: str, seconds: int) -> None:
    """A cluster master hands out executors after the application starts; one that is up
    but has no worker with free cores and memory would leave every job waiting for ever.
    Wait for them (all W of ``local-cluster[W,...]``, at least one elsewhere), else stop
    and say so in one line."""
    if master.startswith("local-cluster"):
        wanted = int(master.partition("[")[2].split(",")[0] or 1)
    elif master.startswith("spark://"):
        wanted = 1
    else:
        return
    deadline = time.monotonic() + seconds
    while True:
        executors = int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1
        if executors >= wanted:
            return
        if time.monotonic() >= deadline:
            spark.stop()
            raise DriversError(
                f"Spark master {master} gave this application {executors} of {wanted} "
                f"executor(s) within {seconds} s: no worker with free cores and memory is "
                "registered (start workers, or wait longer with ?executor_wait=SECONDS)"
            )
        time.sleep(0.2)


@contextmanager
def _process_mode_kept() -> Iterator[None]:
    """Creating a Connect session marks the whole process as Spark Connect (an environment
    variable that turns classic PySpark calls into Connect ones); a classic engine in the
    same process must keep working, so the mark is put back as it was."""
    before = os.environ.get("SPARK_CONNECT_MODE_ENABLED")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        else:
            os.environ["SPARK_CONNECT_MODE_ENABLED"] = before


def _bound_retries(spark: Any, seconds: int) -> None:
    """The Connect client retries a server that does not answer for at least ten minutes by
    default; a benchmark whose server went away should stop within ``seconds`` and say so."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    backoff, total, retries = 100, 0, 0  # milliseconds, doubling up to 8 s
    while total + backoff <= seconds * 1000:
        total, retries = total + backoff, retries + 1
        backoff = min(2 * backoff, 8000)
    policy = DefaultPolicy(
        max_retries=retries, initial_backoff=100, backoff_multiplier=2.0, max_backoff=8000
    )
    spark.client.set_retry_policies([policy])


def _stop_connect(spark: Any) -> None:
    """Release a Spark Connect session and close its channel now. Left to the garbage
    collector, the channel closes at interpreter exit, where gRPC waits for ever."""
    with contextlib.suppress(Exception):
        spark.stop()


def _quiet_client_logs() -> None:
    """PySpark logs every analysis error as a JSON record on stderr before raising it; the
    error reaches the user once, as dbbench's one line, so those records are switched off."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True
    # the Connect client warns before it raises what ends its retries; the error says it all
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")


def _require_java() -> None:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise DriversError(
            "Spark needs a Java runtime (17 or newer) and none was found: install one "
            "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
        )


def connect(url: EngineURL) -> SparkEngine:
    """The registry's entry point for ``spark`` and ``sc`` URLs."""
    return SparkEngine(url)
