"""Which database server each URL of a multi-URL o2c run reaches: two URLs of one server
(two databases of one PostgreSQL cluster, two addresses of one MariaDB) would count its
capacity twice, so a run, search or node study refuses them in one line.

An engine that can tell says so through its ``server_identity()`` hook (PostgreSQL: the
cluster's ``system_identifier`` from ``pg_control_system()``; MariaDB/MySQL: the server's own
``@@hostname:@@port``); one that cannot (embedded engines) is told apart by its URL.
"""

from __future__ import annotations

from collections.abc import Sequence

from dbbench.drivers.engine import Engine, ServerIdentity
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import redact


def server_identity(engine: Engine, url: str) -> str:
    """The server ``engine`` (opened from ``url``) runs on, as a stable label."""
    if isinstance(engine, ServerIdentity):
        return str(engine.server_identity())
    return f"url {redact(url)}"


def distinct_servers(engines: Sequence[Engine], urls: Sequence[str]) -> list[str]:
    """Each engine's server identity; refuses (one line) two URLs of one server."""
    found: dict[str, str] = {}
    ids = []
    for engine, url in zip(engines, urls, strict=True):
        ident = server_identity(engine, url)
        if ident in found:
            raise DriversError(
                f"{redact(url)} and {found[ident]} reach one server ({ident}): each server "
                "may be named once in a multi-URL run"
            )
        found[ident] = redact(url)
        ids.append(ident)
    return ids
