"""Starting Spark for the engine: the master and warehouse a URL names, the driver JVM
(launched once per process with its output in a log file), the Spark Connect client (its
retries bounded, its error logs quiet), and the count of engines sharing this process's
JVM."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.spark_cluster import wait_for_executors
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL

_SPARK_LOCK = threading.Lock()
_SPARK_USERS: dict[str, int] = {}  # master -> open engines sharing this process's JVM


def start(
    url: EngineURL, master: str, policy: ErrorPolicy, executor_wait: int, reconnect_wait: int
) -> Any:
    """The Spark session a URL names: a Spark Connect client session of its own, or this
    process's classic session on ``master`` (its JVM started once, then shared)."""
    from pyspark.sql import SparkSession

    settings = {k: v for k, v in url.query.items() if k.startswith("spark.")}
    require_reachable(url)
    quiet_client_logs()
    if url.scheme == "sc":
        with policy.guard("connect"):
            builder = SparkSession.builder.remote(master)
            for key, value in settings.items():
                builder = builder.config(key, value)
            with process_mode_kept():
                spark = builder.create()  # its own (getOrCreate may give another's)
            bound_retries(spark, reconnect_wait)
            return spark
    require_java()
    os.environ["PYSPARK_PYTHON"] = url.query.get("python") or sys.executable
    defaults = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.scheduler.mode": "FAIR",  # concurrent streams share the executors
        "spark.sql.cbo.enabled": "true",  # uses the statistics ANALYZE computes
        "spark.sql.session.timeZone": "UTC",
        # the session's own warehouse folder (made at its start; the tables have locations
        # of their own): the run's, not spark-warehouse/ in the working folder
        "spark.sql.warehouse.dir": warehouse_of(url),
        # the JVM's own log: errors only, from its start (the kit reports the rest)
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log_config()}",
    }
    if master.startswith("local"):  # the driver talks to itself: loopback only
        defaults["spark.driver.host"] = defaults["spark.driver.bindAddress"] = "127.0.0.1"
    cores = local_cores(master)
    if cores:  # Spark's 200 shuffle partitions suit a cluster, not one machine
        defaults["spark.sql.shuffle.partitions"] = str(max(8, 4 * cores))
    with _SPARK_LOCK:
        from pyspark import SparkContext

        active = SparkContext._active_spark_context
        running = str(active.master) if active is not None else None
        if active is not None and running != master:
            if _SPARK_USERS.get(str(running)):
                raise DriversError(
                    f"this process already runs Spark with master {running}; "
                    f"one master per process (asked for {master})"
                )
            active.stop()
        # PySpark marks the whole process as Spark Connect once a Connect session exists
        # (an environment variable); a classic engine asked for here is classic
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        builder = SparkSession.builder.master(master).appName("dbbench")
        for key, value in {**defaults, **settings}.items():
            builder = builder.config(key, value)
        with policy.guard("start Spark"):
            launch_jvm(master, {**defaults, **settings})
            spark = builder.getOrCreate()
            spark.sparkContext.setLogLevel("ERROR")
            wait_for_executors(spark, master, executor_wait)
        _SPARK_USERS[master] = _SPARK_USERS.get(master, 0) + 1
    return spark


def release(master: str) -> None:
    """A classic engine on ``master`` closed. The JVM stays up for the rest of the process
    (a next engine on the same master reuses it); it ends with the process."""
    with _SPARK_LOCK:
        _SPARK_USERS[master] = max(0, _SPARK_USERS.get(master, 0) - 1)


def connect_session(master: str, reconnect_wait: int) -> Any:
    """A further Spark Connect session (one per query stream)."""
    from pyspark.sql import SparkSession

    with process_mode_kept():
        spark = SparkSession.builder.remote(master).create()
    bound_retries(spark, reconnect_wait)
    return spark


def spark_master(url: EngineURL) -> str:
    if url.scheme == "sc":
        if not url.host:
            raise DriversError("a Spark Connect URL needs a host: sc://host:15002")
        return f"sc://{url.host}:{url.port or 15002}"
    host = url.host or "local[*]"
    if host.startswith("local"):
        return host
    return f"spark://{host}:{url.port or 7077}"


def local_cores(master: str) -> int | None:
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


#: The warehouse of a URL that names none (a run puts it in its run directory:
#: ``SparkEngine.in_run_dir``)
DEFAULT_WAREHOUSE = "spark-warehouse"


def warehouse_of(url: EngineURL) -> str:
    where = url.query.get("warehouse") or url.database or DEFAULT_WAREHOUSE
    if "://" in where or where.startswith("file:"):
        return where.rstrip("/")
    return "file://" + os.path.abspath(where)


def require_reachable(url: EngineURL) -> None:
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


def launch_jvm(master: str, settings: dict[str, str]) -> None:
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


def log_config() -> str:
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


@contextmanager
def process_mode_kept() -> Iterator[None]:
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


def bound_retries(spark: Any, seconds: int) -> None:
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


def stop_connect(spark: Any) -> None:
    """Release a Spark Connect session and close its channel now. Left to the garbage
    collector, the channel closes at interpreter exit, where gRPC waits for ever."""
    with contextlib.suppress(Exception):
        spark.stop()


def quiet_client_logs() -> None:
    """PySpark logs every analysis error as a JSON record on stderr before raising it; the
    error reaches the user once, as dbbench's one line, so those records are switched off."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True
    # the Connect client warns before it raises what ends its retries; the error says it all
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")


def require_java() -> None:
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        raise DriversError(
            "Spark needs a Java runtime (17 or newer) and none was found: install one "
            "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
        )
