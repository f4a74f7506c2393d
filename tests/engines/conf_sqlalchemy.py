"""The generic engine for "any SQLAlchemy URL", on a real server it has no code for
(PostgreSQL through SQLAlchemy's psycopg dialect)."""

from __future__ import annotations

from engine_conf import ServerTestConf

from dbbench.drivers.engine import Engine
from dbbench.drivers.engines.sqlalchemy import SqlAlchemyEngine
from dbbench.drivers.url import parse_url


class TestConf(ServerTestConf):
    name = "sqlalchemy"
    server = "postgresql"
    kill_connection = ("SELECT pg_backend_pid()", "SELECT pg_terminate_backend({id})")

    def engine_url(self, database_url: str) -> str:
        # The allowed indexes: without them Q17 and Q20 take seconds each on PostgreSQL.
        return database_url.replace("postgresql://", "postgresql+psycopg://") + "?indexes=true"

    def open(self, url: str) -> Engine:
        """The registry would pick the PostgreSQL engine for this URL."""
        return SqlAlchemyEngine(parse_url(url))
