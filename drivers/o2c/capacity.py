"""How many work processes (pooled connections) a run may open on the database server.

Like SAP's dispatcher, the users share a small pool of connections. Its default is
``min(users, max(4, 2 x CPUs))``, capped by what the server still accepts: the engine
states how to read its limit, its reserved and its open connections
(``facts.connections_sql``: PostgreSQL's ``max_connections`` minus
``superuser_reserved_connections`` minus the client backends, MariaDB/MySQL's
``max_connections`` minus ``Threads_connected``), less two kept free (the telemetry
probe, ``o2c check`` from another shell). A pool asked for with ``--work-processes`` that
the server cannot take is refused before the run, in one line.
"""

from __future__ import annotations

import os

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError

#: Connections left for others (the sampler's session, a check from another shell).
SPARE = 2


def free_connections(engine: Engine) -> tuple[int | None, str]:
    """Connections the server still accepts (None: unknown, e.g. an embedded engine) and
    the settings that say so, for messages."""
    sql = engine.facts.connections_sql
    if sql is None:
        return None, ""
    session = engine.session()
    try:
        row = session.query(sql).rows[0]
    finally:
        session.close()
    maximum, reserved, used = (int(v) for v in row)
    # our own session above is one of ``used``; it is closed again now
    free = maximum - reserved - (used - 1)
    return free, f"max_connections {maximum}, {reserved} reserved, {used - 1} in use"


def work_processes(engine: Engine, users: int, asked: int | None) -> int:
    """The pool size for ``users``: as asked (checked against the server) or the default."""
    free, why = free_connections(engine)
    room = None if free is None else free - SPARE
    if asked is not None:
        if room is not None and asked > room:
            raise DriversError(
                f"--work-processes {asked}: the server takes only {max(room, 0)} more "
                f"connections ({why}, {SPARE} kept free)"
            )
        return min(asked, users)
    default = min(users, max(4, 2 * (os.cpu_count() or 1)))
    if room is not None:
        if room < 1:
            raise DriversError(f"the server takes no more connections ({why})")
        default = min(default, room)
    return default


def room_for(engines: list[Engine]) -> int | None:
    """The connections every one of ``engines`` still accepts for a pool (``SPARE`` kept
    free); None: no limit is known (embedded engines)."""
    rooms = [free - SPARE for free, _ in map(free_connections, engines) if free is not None]
    return min(rooms) if rooms else None
