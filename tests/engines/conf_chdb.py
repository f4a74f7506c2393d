"""ClickHouse embedded (chDB), a session folder (``pip install 'dbbench[chdb]'``)."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "chdb"
    url = "chdb:///{folder}/chdb"
    slow_query = "SELECT sum(number) FROM numbers(100000000000)"
    can_reopen = False  # one chDB database per process, one engine object on it
