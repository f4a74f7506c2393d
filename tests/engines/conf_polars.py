"""Polars in memory in this process (``pip install 'dbbench[polars]'``)."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "polars"
    url = "polars://"  # an in-memory database: no file in {folder}
    slow_query = (
        "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_returnflag = b.l_returnflag"
    )
    can_reopen = False  # a second engine object is a second, empty database
