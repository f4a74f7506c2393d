"""PostgreSQL through psycopg, a private database on the shared server."""

from __future__ import annotations

from engine_conf import ServerTestConf


class TestConf(ServerTestConf):
    name = "postgresql"
    server = "postgresql"
    slow_query = "SELECT pg_sleep(60)"
    kill_connection = ("SELECT pg_backend_pid()", "SELECT pg_terminate_backend({id})")
