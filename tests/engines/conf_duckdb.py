"""DuckDB, file database with primary keys: the reference of the cross-engine query checks."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "duckdb"
    url = "duckdb:///{folder}/bench.duckdb?keys=true"
    slow_query = "SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000000) b"
    can_reopen = False  # one DuckDB file, one database instance per process
    reference = True
