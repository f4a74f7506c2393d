"""The telemetry sampler's engine counters follow the engine through a reopen: a study's cold
passes restart PostgreSQL by its URL's ``restart`` command (or reopen DuckDB's file), which
ends the session the sampler read its counters on. Its counters kept appearing only until
then ("engine counters stopped"); now the sampler reads them on a new session of the
reopened engine, and every sample keeps a value of each counter (aligned with the host's)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_cold_hot import Restartable, _started, restartable  # noqa: F401 - the fixture

from dbbench.drivers.engine import Engine
from dbbench.drivers.registry import open_engine
from dbbench.drivers.telemetry import Sampler, engine_probe, engine_scope
from dbbench.reports.tpch.model import Telemetry

INTERVAL = 0.2


def _busy(engine: Engine, seconds: float) -> int:
    """Short transactions on a session of its own for ``seconds``; how many."""
    s = engine.session()
    done = 0
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            s.query("SELECT count(*) FROM (VALUES (1), (2), (3)) AS t(x)")
            done += 1
    finally:
        s.close()
    return done


def _sampled(engine: Engine, url: str, reopen_between: float) -> tuple[Telemetry, float, int]:
    """Samples while ``engine`` works, is reopened and works again; when the reopen
    returned (epoch seconds) and the transactions after it."""
    sampler = Sampler(INTERVAL, engine_scope(url), engine_probe(engine)).start()
    try:
        _busy(engine, reopen_between)
        assert engine.reopen() is True
        reopened = time.time()
        done = _busy(engine, 3.0)
        time.sleep(1.5)  # a server's statistics of a closed session: written a moment later
    finally:
        tel = sampler.stop()
    return tel, reopened, done


def _after(tel: Telemetry, reopened: float) -> list[int]:
    """The samples taken wholly after the reopen returned."""
    return [i for i in range(1, len(tel.t)) if tel.t[i - 1] > reopened]


@pytest.mark.postgresql
def test_engine_counters_follow_a_restarted_postgresql(
    restartable: Restartable,  # noqa: F811 - the fixture imported above
) -> None:
    before = _started(restartable.url)
    engine = open_engine(restartable.restart_url)
    try:
        tel, reopened, done = _sampled(engine, restartable.url, 1.5)
    finally:
        engine.close()
    assert _started(restartable.url) > before  # the server really went down and up
    assert "stopped" not in tel.note, tel.note
    assert set(tel.engine) >= {"xact_commit", "tup_returned", "blks_hit"}
    # every sample has each counter, before and after the restart: none stopped early
    assert all(len(series) == len(tel.t) for series in tel.engine.values()), (
        len(tel.t), {k: len(v) for k, v in tel.engine.items()},
    )  # fmt: skip
    after = _after(tel, reopened)
    assert len(after) >= 10, (tel.t, reopened)
    assert all(v >= 0 for series in tel.engine.values() for v in series)
    # the restarted server's own counters, read on a new session: its commits per second
    # over the samples after the restart add up to the transactions run after it (besides
    # them only the sampler's own readings and a few of the kit's), never to a jump
    commits = sum(tel.engine["xact_commit"][i] * (tel.t[i] - tel.t[i - 1]) for i in after)
    assert 0.5 * done <= commits <= 1.1 * done + 100, (commits, done, tel.engine["xact_commit"])


def test_engine_counters_follow_a_reopened_duckdb_file(tmp_path: Path) -> None:
    url = f"duckdb:///{tmp_path / 'x.duckdb'}"
    engine = open_engine(url)
    try:
        tel, reopened, _ = _sampled(engine, url, 0.6)
    finally:
        engine.close()
    assert "stopped" not in tel.note, tel.note
    assert set(tel.engine) == {"memory_bytes", "temp_bytes"}
    assert all(len(series) == len(tel.t) for series in tel.engine.values())
    assert len(_after(tel, reopened)) >= 5
