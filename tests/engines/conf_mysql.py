"""MariaDB through SQLAlchemy + PyMySQL, a private database on the shared server."""

from __future__ import annotations

from engine_conf import ServerTestConf


class TestConf(ServerTestConf):
    name = "mysql"
    server = "mariadb"
    slow_query = "SELECT BENCHMARK(100000000000, MD5('dbbench'))"
    kill_connection = ("SELECT CONNECTION_ID()", "KILL CONNECTION {id}")
