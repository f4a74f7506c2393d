"""Apache Spark in local mode over a Parquet warehouse folder (``pip install
'dbbench[spark]'`` and a Java runtime). Opt-in: the matrix adds two to three minutes on Spark
(``DBBENCH_SPARK_MATRIX=1``); tests/drivers/test_spark*.py run Spark in every ``make test``."""

from __future__ import annotations

import os

import pytest
from engine_conf import FileTestConf

OPT_IN = os.environ.get("DBBENCH_SPARK_MATRIX", "") not in ("", "0", "false", "no")


class TestConf(FileTestConf):
    name = "spark"
    url = "spark://local[2]/{folder}/warehouse"
    slow_query = "SELECT count(*) FROM range(100000000000)"
    marks = (
        pytest.mark.skipif(not OPT_IN, reason="Spark in the engine matrix: DBBENCH_SPARK_MATRIX=1"),
    )
