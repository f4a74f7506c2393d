"""The spark engine on a local cluster of two executor JVMs (``local-cluster[2,1,1024]``).

One ``dbbench run`` at SF 0.01 with S = 2 (load with distributed generation, power test,
throughput test) is shared by the module; one JVM serves it all. Checked afterwards: the
Parquet part files equal dbgen's parts, ORDERS and LINEITEM equal DuckDB's after the same
update sets row for row, and so do the other tables. (That the 22 queries agree with DuckDB is
the engine matrix's check, ``tests/engines/test_engine_queries.py``.) The run and its
checks are ``nightly`` (about 4 CPU-minutes of JVMs on 2 cores); the URL, error and
distributed-generation tests run in ``make test``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import psutil
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from spark_reference import KEYS, assert_same_rows, duckdb_after_sets

from dbbench.cli import main
from dbbench.dbgen import api
from dbbench.drivers.engine import Engine
from dbbench.drivers.engines import spark as spark_engine
from dbbench.drivers.engines import spark_launch
from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import RESULT_FILE
from dbbench.drivers.url import parse_url
from dbbench.queries.params import default_parameters
from dbbench.queries.render import render
from dbbench.reports.tpch.model import BenchmarkResult

MASTER = "local-cluster[2,1,1024]"
SF = 0.01
S = 2
SETS = range(1, S + 2)  # the power test's pair and one per throughput stream


KILLED: list[int] = []  # the executor JVM killed during the module's run


def _executor_jvms() -> list[psutil.Process]:
    """The executor JVMs of this process's local cluster (children of the driver's JVM)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "CoarseGrainedExecutorBackend" in " ".join(child.cmdline()):
                found.append(child)
    return found


def _kill_an_executor_during_the_power_test(journal: Path, done: threading.Event) -> None:
    """Once the power test has measured two intervals, SIGKILL one executor JVM."""
    while not done.is_set():
        text = journal.read_text() if journal.exists() else ""
        if '"phase":"power"' in text and text.count('"status":"ok"') >= 2:
            victims = _executor_jvms()
            if victims:
                victims[0].kill()
                KILLED.append(victims[0].pid)
            return
        time.sleep(0.05)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The warehouse URL and the run directory of one whole benchmark run, during whose
    power test one of the two executor JVMs is killed (Spark runs its tasks again)."""
    base = tmp_path_factory.mktemp("spark")
    url = f"spark://{MASTER}/{base / 'warehouse'}"
    out = base / "run"
    # plans off: Spark's EXPLAIN of 66 queries is tests/engines/test_engine_plans.py's
    args = ["run", "-e", url, "-s", str(SF), "--streams", str(S), "--runs", "1", "-o", str(out)]
    args += ["--plans", "off"]
    done = threading.Event()
    killer = threading.Thread(
        target=_kill_an_executor_during_the_power_test, args=(out / "journal.jsonl", done)
    )
    killer.start()
    try:
        assert main(args) == 0
    finally:
        done.set()
        killer.join()
    return url, out


@pytest.fixture(scope="module")
def spark(bench: tuple[str, Path]) -> Iterator[spark_engine.SparkEngine]:
    engine = open_engine(bench[0])
    assert isinstance(engine, spark_engine.SparkEngine)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def duck() -> Iterator[Engine]:
    """DuckDB at the same SF with the same update sets applied, in the same order."""
    engine = duckdb_after_sets(SF, SETS)
    yield engine
    engine.close()


@pytest.mark.nightly
def test_run_measures_load_power_and_concurrent_throughput(bench: tuple[str, Path]) -> None:
    result = BenchmarkResult.read(bench[1] / RESULT_FILE)
    assert result.status == "complete" and result.errors == []
    assert result.load is not None and not result.load.reused
    assert result.load.rows["lineitem"] == api.row_count("lineitem", SF)
    assert "analyze" in result.load.steps
    assert result.engine.version.startswith("Apache Spark 4")
    assert "RF2 rewrites only the files" in result.engine.settings["refresh"]
    (run,) = result.runs
    kinds = Counter((i.phase, i.kind) for i in run.intervals)
    assert kinds[("power", "query")] == 22 and kinds[("throughput", "query")] == 22 * S
    assert sum(n for (_, kind), n in kinds.items() if kind != "query") == 2 + 2 * S
    failed = [i for i in run.intervals if i.status != "ok"]
    assert not failed, f"first failed interval: {failed[0]}"
    assert run.update_sets == list(SETS)
    # the two streams ran side by side: some query of stream 2 started before stream 1 ended
    spans = {
        s: [(i.start, i.end) for i in run.intervals if i.stream == s and i.kind == "query"]
        for s in (1, 2)
    }
    assert min(a for a, _ in spans[2]) < max(b for _, b in spans[1])
    assert min(a for a, _ in spans[1]) < max(b for _, b in spans[2])


@pytest.mark.nightly
def test_an_executor_lost_mid_run_costs_time_not_the_run(bench: tuple[str, Path]) -> None:
    """The fixture's run completed (asserted there and in the test above) although an
    executor JVM was killed during its power test."""
    assert KILLED, "no executor JVM was found to kill during the power test"
    assert not psutil.pid_exists(KILLED[0]) or psutil.Process(KILLED[0]).status() == "zombie"
    result = BenchmarkResult.read(bench[1] / RESULT_FILE)
    assert result.status == "complete" and result.errors == []


@pytest.mark.nightly
def test_generation_ran_on_two_executors_and_parts_equal_dbgen(
    spark: spark_engine.SparkEngine,
) -> None:
    # the driver and two executor JVMs (the master replaced the one the run lost)
    deadline = time.monotonic() + 60
    while spark.spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() < 3:
        assert time.monotonic() < deadline, "the lost executor was not replaced"
        time.sleep(0.5)
    for table in ("customer", "part", "partsupp"):  # tables no refresh function touches
        folder = Path(spark.location(table).removeprefix("file://"))
        files = sorted(folder.glob("part-*.parquet"))
        parts = spark.parts_for(api.row_count(table, SF))
        assert len(files) == parts == 2, table
        for k, file in enumerate(files, start=1):
            got = pq.read_table(file)
            want = pa.Table.from_batches(list(api.table_batches(table, SF, part=k, parts=parts)))
            assert got.cast(want.schema).equals(want), f"{table} part {k} of {parts}"


@pytest.mark.nightly
@pytest.mark.parametrize("table", KEYS)
def test_refresh_functions_leave_exactly_the_right_rows(
    spark: spark_engine.SparkEngine, duck: Engine, table: str
) -> None:
    assert_same_rows(spark.spark.table(table).toArrow(), duck, table, SF, SETS)


@pytest.mark.nightly
@pytest.mark.parametrize("table", ["supplier", "nation", "region"])
def test_the_other_tables_equal_duckdbs(
    spark: spark_engine.SparkEngine, duck: Engine, table: str
) -> None:
    """With the generation test (customer, part, partsupp) and the refresh test (orders,
    lineitem), every table the cluster made is DuckDB's, row for row. That the 22 queries
    over such data agree with DuckDB's answers is the engine matrix's check
    (``tests/engines/test_engine_queries.py``, Spark with two parameter sets), not repeated
    here."""
    got = spark.spark.table(table).toArrow()
    want = duck._db.sql(f"SELECT * FROM {table}").to_arrow_table()  # type: ignore[attr-defined]
    key = want.column_names[0]  # s_suppkey, n_nationkey, r_regionkey
    got, want = got.sort_by(key).cast(want.schema), want.sort_by(key)
    assert got.num_rows == want.num_rows == api.row_count(table, SF), table
    assert got.equals(want), table


@pytest.mark.nightly
def test_column_statistics_are_computed(spark: spark_engine.SparkEngine) -> None:
    rows = spark.spark.sql("DESCRIBE TABLE EXTENDED customer c_custkey").collect()
    stats = {str(r[0]): str(r[1]) for r in rows}
    assert stats["distinct_count"] != "NULL" and stats["max"] == "1500"


def test_urls_name_the_master_and_the_warehouse() -> None:
    cases = {
        "spark": ("local[*]", "spark-warehouse"),
        "spark://local[2]//data/wh": ("local[2]", "/data/wh"),
        "spark://local-cluster[2,1,1024]/wh": ("local-cluster[2,1,1024]", "wh"),
        "spark://master.example:7077/wh?warehouse=hdfs://nn/wh": (
            "spark://master.example:7077",
            "",
        ),
        "sc://connect.example": ("sc://connect.example:15002", "spark-warehouse"),
    }
    for text, (master, folder) in cases.items():
        url = parse_url(text)
        assert spark_launch.spark_master(url) == master, text
        warehouse = spark_launch.warehouse_of(url)
        if url.query.get("warehouse"):
            assert warehouse == "hdfs://nn/wh"
        else:
            assert warehouse == "file://" + os.path.abspath(folder), text
    assert parse_url("spark://local[2]//data/wh").render() == "spark://local[2]//data/wh"
    assert parse_url("postgresql://localhost/db").host == "localhost"


def test_a_master_that_is_down_is_one_line() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(DriversError, match=f"Spark master 127.0.0.1:{port} is not reachable"):
        open_engine(f"spark://127.0.0.1:{port}/wh")


def test_spark_without_java_names_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(DriversError, match=r"Spark needs a Java runtime .* openjdk-17"):
        open_engine(f"spark://local[1]/{tmp_path}")


@pytest.mark.parametrize("fmt", ["tbl", "parquet"])
def test_gen_on_spark_writes_what_gen_parts_writes(tmp_path: Path, fmt: str) -> None:
    tables = ["-T", "c,s,n", "--format", fmt, "-s", str(SF), "--parts", "2", "-q"]
    cluster = f"spark://{MASTER}/{tmp_path / 'warehouse'}"
    assert main(["gen", "-e", cluster, *tables, "-o", str(tmp_path / "spark")]) == 0
    for k in (1, 2):
        assert main(["gen", *tables, "--part", str(k), "-o", str(tmp_path / "local")]) == 0
    made = sorted(p.name for p in (tmp_path / "spark").iterdir())
    assert made == sorted(p.name for p in (tmp_path / "local").iterdir())
    assert len(made) == 5  # customer and supplier in 2 parts, nation whole
    for name in made:
        got, want = tmp_path / "spark" / name, tmp_path / "local" / name
        if fmt == "tbl":
            assert got.read_bytes() == want.read_bytes(), name
        else:
            assert pq.read_table(got).equals(pq.read_table(want)), name


def test_spark_dialect_makes_q15_a_temporary_view_of_its_stream() -> None:
    rendered = render(15, default_parameters(1)[15], dialect="spark", stream=3)
    assert rendered.setup[0].startswith("create temporary view revenue3 (supplier_no,")
    assert rendered.teardown == ["drop view revenue3"]
    assert "limit 100" in render(2, default_parameters(1)[2], dialect="spark", stream=0).query
