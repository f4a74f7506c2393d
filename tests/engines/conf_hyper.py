"""Tableau Hyper, a database file served by the ``hyperd`` the engine starts
(``pip install 'dbbench[hyper]'``)."""

from __future__ import annotations

from engine_conf import FileTestConf


class TestConf(FileTestConf):
    name = "hyper"
    url = "hyper:///{folder}/bench.hyper"
    slow_query = "SELECT count(*) FROM generate_series(1, 100000000000) g"
    can_reopen = False  # the engine's own hyperd holds the file: a second one is refused
