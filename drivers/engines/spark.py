"""Apache Spark: the 22 queries in Spark SQL over typed Parquet, generated on the cluster.

URLs (the path is the warehouse folder; ``//abs/path`` is absolute, ``?warehouse=`` takes any
Hadoop URI such as ``hdfs://...``; without either, ``spark-warehouse`` in the run directory,
or in the working folder outside a run):

* ``spark`` or ``spark://local[N]``: local mode in this process's JVM;
* ``spark://local-cluster[W,C,M]``: W executor JVMs of C cores and M MiB on this machine;
* ``spark://host:7077``: a standalone master;
* ``sc://host:15002``: a Spark Connect server (see :class:`SparkEngine` for its limits).

Query options starting with ``spark.`` are Spark settings; ``python=`` is the interpreter the
executors run (default: this one, which suits every master on this machine).

**Distributed generation** (:mod:`~dbbench.drivers.engines.spark_generate`, the
``GeneratesData`` mixin). The load runs dbbench's generator as Spark tasks: task K of a
table makes dbgen part K of N (``table_batches(table, sf, part=K, parts=N)``) as Arrow
batches inside the executor (``mapInArrow``), and Spark writes them as typed Parquet into the
warehouse. No row passes through this process. Tables are registered in the session catalog
over their folders and analysed (``ANALYZE TABLE ... FOR ALL COLUMNS``).

The engine is split by concern: this module (its declaration and ``connect``),
:mod:`~dbbench.drivers.engines.spark_engine` (the engine, its sessions, the refresh
functions' staging and swap), :mod:`~dbbench.drivers.engines.spark_launch` (the master, the
driver JVM, the Connect client), :mod:`~dbbench.drivers.engines.spark_cluster` (waiting for
executors, the query/swap lock), :mod:`~dbbench.drivers.engines.spark_generate` and
:mod:`~dbbench.drivers.engines.spark_files` (moving Parquet files).

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

from dbbench.drivers.engine import EngineSpec
from dbbench.drivers.engines.spark_engine import SparkEngine
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="spark",
    url_form="spark://local[N] | spark://local-cluster[W,C,M] | spark://host:7077 | sc://host:15002",
    requires=("pyspark", "pandas"),
    install="pip install 'dbbench[spark]'",
    schemes=("sc",),
)


def connect(url: EngineURL) -> SparkEngine:
    """The registry's entry point for ``spark`` and ``sc`` URLs; a Connect server that
    answers as Sail is served by the ``sail`` engine."""
    if url.scheme == "sc":
        from dbbench.drivers.engines import sail

        if sail.answers_as_sail(url):
            return sail.SailEngine(url)
    return SparkEngine(url)


__all__ = ["ENGINE", "SparkEngine", "connect"]
