"""A lost server is one error of the run, however many work processes saw it go."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from private_databases import fresh_postgres

from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.reports.model import O2CProbe

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
            load_database(engine, 0.01, jobs=1)
            prepared = setup.prepare(engine, seed=2, users=30)
            cfg = RunConfig(
                users=30, think=0.05, rampup=0.2, steady=60.0, work_processes=POOL,
                progress_interval=600,
            )  # fmt: skip
            sim = Simulator(engine, prepared, cfg)
            found: list[O2CProbe] = []
            worker = threading.Thread(target=lambda: found.append(sim.run()))
            worker.start()
            time.sleep(2.0)
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(pg_base_url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE {name} WITH (FORCE)")  # type: ignore[arg-type]
            worker.join(timeout=90)
            assert not worker.is_alive()
        finally:
            engine.close()
    (probe,) = found
    assert probe.status == "failed"
    lost = [e for e in probe.errors if e.startswith(GONE)]
    assert len(lost) == 1, lost
    assert sim.fatal == lost[0]
    # the steps that failed are those that met a cut connection before the loss was known
    # (each connection fails once: its user holds it while trying to replace it), not steps
    # started after it on a connection a user gave back to the pool cut
    failed_steps = [e for e in probe.errors if e.startswith("step ")]
    assert 0 < len(failed_steps) <= POOL, probe.errors
