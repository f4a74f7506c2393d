"""A lost server is one error of the run, however many work processes saw it go."""

from __future__ import annotations

import pytest
from o2c_helpers import run_and_drop
from private_databases import fresh_postgres

from dbbench.drivers.registry import open_engine

GONE = "the server went away"
POOL = 8  # work processes


@pytest.mark.postgresql
def test_a_lost_server_is_recorded_once(pg_base_url: str) -> None:
    """The database is dropped WITH (FORCE) mid-run: every one of the eight work processes'
    connections is cut and none can be opened again, so several users try to replace theirs
    and fail. The run records the lost server once, and no step starts after it (a user
    that gets a cut connection back from the pool does not try it)."""
    with fresh_postgres(pg_base_url, "dbbench_o2c") as url:
        engine = open_engine(url)
        try:
            sim, probe, _ = run_and_drop(engine, url, pg_base_url, POOL)
        finally:
            engine.close()
    assert probe.status == "failed"
    lost = [e for e in probe.errors if e.startswith(GONE)]
    assert len(lost) == 1, lost
    assert sim.fatal == lost[0]
    # the steps that failed are those that met a cut connection before the loss was known
    # (each connection fails once: its user holds it while trying to replace it), not steps
    # started after it on a connection a user gave back to the pool cut
    failed_steps = [e for e in probe.errors if e.startswith("step ")]
    assert 0 < len(failed_steps) <= POOL, probe.errors
