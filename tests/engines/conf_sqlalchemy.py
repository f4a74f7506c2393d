"""The generic engine for "any SQLAlchemy URL", on a real server it has no code for
(PostgreSQL through SQLAlchemy's psycopg dialect)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf
from private_databases import fresh_postgres

from dbbench.drivers.engine import Engine
from dbbench.drivers.engines.sqlalchemy import SqlAlchemyEngine
from dbbench.drivers.url import parse_url


class TestConf(EngineTestConf):
    name = "sqlalchemy"
    marks = (pytest.mark.postgresql,)
    kill_connection = ("SELECT pg_backend_pid()", "SELECT pg_terminate_backend({id})")

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        with fresh_postgres(request.getfixturevalue("pg_base_url")) as url:
            # The allowed indexes: without them Q17 and Q20 take seconds each on PostgreSQL.
            yield url.replace("postgresql://", "postgresql+psycopg://") + "?indexes=true"

    def open(self, url: str) -> Engine:
        """The registry would pick the PostgreSQL engine for this URL."""
        return SqlAlchemyEngine(parse_url(url))
