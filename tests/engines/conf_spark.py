"""Apache Spark in local mode over a Parquet warehouse folder (``pip install
'dbbench[spark]'`` and a Java runtime); about a minute of the suite."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "spark"
    # the master of tests/drivers/test_spark.py: one process runs one Spark master at a time
    url = "spark://local-cluster[2,1,1024]/{folder}/warehouse"
    slow_query = "SELECT count(*) FROM range(100000000000)"
    # the random stream's parameters run on Sail, which takes the same Spark SQL (the spark
    # dialect): Spark's own JVMs run the defaults only (22 queries, about a minute less)
    parameter_sets = ("defaults",)
