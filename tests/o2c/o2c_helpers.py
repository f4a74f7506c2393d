"""Helpers of the o2c tests: the engines they run on, an independent table checksum and a
run whose database is dropped under it."""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dbbench.drivers.engine import Engine
from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c.model import O2CProbe

SF = 0.01
ENGINES = [
    pytest.param("duckdb", id="duckdb"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
    pytest.param("sqlite", id="sqlite"),
]


def table_digest(url: str) -> dict[str, str]:
    """The test's own checksum of every row of the four tables o2c writes to (independent
    of the kit's fingerprints): SHA-256 over the sorted rows."""
    engine = open_engine(url)
    s = engine.session()
    found = {}
    try:
        for table, key in (
            ("customer", "c_custkey"),
            ("partsupp", "ps_partkey, ps_suppkey"),
            ("orders", "o_orderkey"),
            ("lineitem", "l_orderkey, l_linenumber"),
        ):
            rows = s.query(f"SELECT * FROM {table} ORDER BY {key}").rows
            found[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
    finally:
        s.close()
        engine.close()
    return found


def run_and_drop(
    engine: Engine, url: str, pg_base_url: str, work_processes: int | None = None
) -> tuple[Simulator, O2CProbe, float]:
    """A 60-s o2c run of 30 users on ``engine`` (a fresh PostgreSQL database at ``url``,
    loaded here at SF 0.01) whose database is dropped WITH (FORCE) after 2 s: every
    connection is cut and none can be opened again. The simulator, its probe and the
    seconds the run took."""
    load_database(engine, SF, jobs=1)
    prepared = setup.prepare(engine, seed=2, users=30)
    cfg = RunConfig(
        users=30, think=0.05, rampup=0.2, steady=60.0, work_processes=work_processes,
        progress_interval=600,
    )  # fmt: skip
    sim = Simulator(engine, prepared, cfg)
    found: list[O2CProbe] = []
    worker = threading.Thread(target=lambda: found.append(sim.run()))
    started = time.monotonic()
    worker.start()
    time.sleep(2.0)
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(pg_base_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")  # type: ignore[arg-type]
    worker.join(timeout=90)
    assert not worker.is_alive()
    (probe,) = found
    return sim, probe, time.monotonic() - started


def prepare_users(url: str, users: int) -> None:
    """``o2c prepare`` of ``users`` users (seed 1) on the database at ``url``."""
    engine = open_engine(url)
    try:
        setup.prepare(engine, seed=1, users=users)
    finally:
        engine.close()


@contextlib.contextmanager
def agent_process(
    cmd: list[str], log: Path, env: dict[str, str]
) -> Iterator[subprocess.Popen[str]]:
    """``dbbench o2c agent`` started by ``cmd`` (its output in ``log``), once it listens;
    stopped at the end (terminated, killed after 10 s)."""
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=out, text=True)
    try:
        deadline = time.monotonic() + 60
        while "listening" not in log.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
        assert "listening" in log.read_text(), log.read_text()
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
