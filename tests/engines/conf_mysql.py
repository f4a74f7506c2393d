"""MariaDB through SQLAlchemy + PyMySQL, a private database on the shared server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf
from private_databases import fresh_mariadb


class TestConf(EngineTestConf):
    name = "mysql"
    marks = (pytest.mark.mariadb,)
    slow_query = "SELECT BENCHMARK(100000000000, MD5('dbbench'))"
    kill_connection = ("SELECT CONNECTION_ID()", "KILL CONNECTION {id}")

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        with fresh_mariadb(request.getfixturevalue("mariadb_base_url")) as url:
            yield url
