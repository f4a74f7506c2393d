"""What the auditor's checklist needs from the database itself (``dbbench disclose``), taken
outside every timed interval: the DDL as executed after the load, the orphans of each foreign
key no constraint checks, and the rows per table and the keys, indexes and views the catalog
lists, after the load and after the test; and the token of Q15's view names, so that the
package shows each query's text as it was executed.

Disclosure only: a fact that cannot be taken is left out and never stops a run, and none may
hold a run up: the row counts read every table, so a table another session holds locked
(a DBA's ``LOCK TABLE``, a stuck transaction) would make them wait for ever. They run on a
session of their own under the run's ``--query-timeout`` (the watchdog cancels them as it
cancels a query), and a count that timed out is left out.
"""

from __future__ import annotations

import contextlib
from typing import Any

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.errors import DriversError
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.watchdog import Watchdog


class _TimedOut(DriversError):
    """A disclosure count outlived the run's query timeout (cancelled)."""


def _bounded_row_counts(ctx: RunContext) -> dict[str, int]:
    """The rows per table; under ``--query-timeout`` on a session of its own (cancelled when
    it passes), else the engine's own count."""
    timeout = ctx.options.query_timeout
    if timeout is None:
        return ctx.engine.row_counts()
    session = ctx.open_session()
    watchdog = Watchdog(session, timeout, ctx.engine.capabilities.cancel)
    sql = " UNION ALL ".join(f"SELECT '{t}', COUNT(*) FROM {t}" for t in TABLES)
    try:
        watchdog.arm()
        try:
            rows = session.query(sql).rows
        except Exception:
            if watchdog.disarm():
                raise _TimedOut(f"the row counts exceeded --query-timeout {timeout:g} s") from None
            return ctx.engine.row_counts()  # an engine whose SQL cannot say it this way
        if watchdog.disarm():
            raise _TimedOut(f"the row counts exceeded --query-timeout {timeout:g} s")
        counts = {str(name): int(n) for name, n in rows}
        return {t: counts[t] for t in TABLES}
    finally:
        watchdog.close()
        ctx.close_session(session)


def disclosure_facts(ctx: RunContext, facts: dict[str, Any], when: str) -> None:
    """Add the facts of ``when`` (``after_load`` or ``after_test``) to ``facts``."""
    engine = ctx.engine
    facts["view_token"] = ctx.token  # Q15's view: revenue<stream>_r<run>_<token>
    if when == "after_load":
        with contextlib.suppress(Exception):
            facts["ddl"] = engine.ddl_statements()
        with contextlib.suppress(Exception):
            facts["orphans_after_load"] = engine.orphan_counts()
    with contextlib.suppress(Exception):
        facts[f"rows_{when}"] = _bounded_row_counts(ctx)
    with contextlib.suppress(Exception):
        facts[f"structures_{when}"] = engine.auxiliary_structures()
