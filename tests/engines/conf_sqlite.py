"""SQLite through SQLAlchemy, a file database."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "sqlite"
    url = "sqlite:///{folder}/bench.sqlite"
    slow_query = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    )
