"""PostgreSQL through psycopg, a private database on the shared server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf
from private_databases import fresh_postgres


class TestConf(EngineTestConf):
    name = "postgresql"
    marks = (pytest.mark.postgresql,)
    slow_query = "SELECT pg_sleep(60)"
    kill_connection = ("SELECT pg_backend_pid()", "SELECT pg_terminate_backend({id})")

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        with fresh_postgres(request.getfixturevalue("pg_base_url")) as url:
            yield url
