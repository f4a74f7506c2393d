"""Q15's views: which ones a benchmark may leave behind, and dropping them afterwards.

Q15 creates and drops a view inside its timing interval. A run stopped between the two
(SIGKILL, a lost connection) leaves the view, and on PostgreSQL a view on LINEITEM blocks
the next load's ``DROP TABLE``. Each benchmark records its view token in the database's
bookkeeping before its first query (and in the journal); the next benchmark on that
database drops every view the recorded token can name before it loads or reuses the data.
"""

from __future__ import annotations

import re

from dbbench.drivers.engine import STATE_Q15_VIEWS, Engine
from dbbench.drivers.errors import DriversError

_ENTRY = re.compile(r"([0-9a-f]{1,32}) ([0-9]{1,3}) ([0-9]{1,4})")


def view_name(stream: int, run: int, token: str) -> str:
    """The name Q15's view gets in ``stream`` of ``run`` (``queries.render``'s suffix rule)."""
    return f"revenue{stream}_r{run}_{token}"


def record_views(engine: Engine, token: str, runs: int, streams: int) -> None:
    """Note, before any query runs, which views this benchmark may create."""
    engine.write_state({STATE_Q15_VIEWS: f"{token} {runs} {streams}"})


def drop_leftover_views(engine: Engine) -> list[str]:
    """Drop every view an earlier, stopped benchmark may have left; the names tried.

    ``DROP VIEW IF EXISTS`` is a no-op for views that were dropped as they should be."""
    entry = engine.read_state().get(STATE_Q15_VIEWS, "")
    match = _ENTRY.fullmatch(entry)
    if match is None:
        return []
    token, runs, streams = match.group(1), int(match.group(2)), int(match.group(3))
    names = [view_name(s, r, token) for r in range(1, runs + 1) for s in range(streams + 1)]
    session = engine.session()
    try:
        for name in names:
            session.execute(f"DROP VIEW IF EXISTS {name}")
    finally:
        session.close()
    engine.write_state({STATE_Q15_VIEWS: ""})
    return names


def drop_leftover_views_quietly(engine: Engine) -> list[str]:
    """As :func:`drop_leftover_views`, on a database that may hold no bookkeeping yet."""
    try:
        return drop_leftover_views(engine)
    except DriversError:
        return []
