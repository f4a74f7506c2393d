"""Apache Spark in local mode over a Parquet warehouse folder (``pip install
'dbbench[spark]'`` and a Java runtime); about a minute of the suite."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "spark"
    url = "spark://local[2]/{folder}/warehouse"
    slow_query = "SELECT count(*) FROM range(100000000000)"
