"""The server CPU of Tableau Hyper. The wheel's server, ``hyperd``, runs as a child of the
driver's process, started by the engine, and serves only that engine's connections: the
engine names it (its sessions' ``backend_pid()`` hook), so the o2c figure and the mixed
result's server-CPU row count that process. Looked up by its name instead, it was "0 hyperd
server instances on this host" (the process calls itself ``hyperdMain``), and by name it
could never be told apart from another engine's ``hyperd``."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import psutil
import pytest

from dbbench.drivers.engine import BackendProcess, Session
from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.servercpu import backend_ids as _backend_ids
from dbbench.drivers.o2c.servercpu import server_cpu_meter, server_cpu_scope
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c.metrics import summarize

pytest.importorskip("tableauhyperapi")

#: what the result says the figure counts
OWN = "the server processes serving the benchmark's own connections"


def _hyperds() -> dict[int, psutil.Process]:
    """The ``hyperd`` processes this process started, found apart from the kit: its
    children running the wheel's ``hyperd`` executable."""
    found = {}
    for proc in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if Path(proc.exe()).name == "hyperd":
                found[proc.pid] = proc
    return found


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def _burn(session: Session, server: psutil.Process, seconds: float = 0.5) -> None:
    """At least ``seconds`` of ``server``'s (``hyperd``'s) CPU on ``session``'s connection:
    one query is 0.2 to 0.5 s of it, by the machine, so it runs until the CPU is spent
    (within 60 s)."""
    start, deadline = _cpu(server), time.monotonic() + 60
    while _cpu(server) - start < seconds and time.monotonic() < deadline:
        session.query("SELECT SUM(x) FROM generate_series(1, 300000000) AS t(x)")


def test_the_server_cpu_row_counts_the_hyperd_the_engine_started(tmp_path: Path) -> None:
    """Two Hyper engines in one process, each with its own ``hyperd``: each one's figure
    counts its own server (as psutil sees it, apart from the kit) and not the other's."""
    before = set(_hyperds())
    mine_url = f"hyper:///{tmp_path / 'mine.hyper'}"
    mine = open_engine(mine_url)
    other = open_engine(f"hyper:///{tmp_path / 'other.hyper'}")
    try:
        started = set(_hyperds()) - before
        assert len(started) == 2  # one hyperd per engine, children of this process
        # the mixed result's server-CPU row: not "0 hyperd server instances on this host"
        assert server_cpu_scope(mine, mine_url) == OWN
        s, o = mine.session(), other.session()
        try:
            pids = _backend_ids([s], BackendProcess)  # what an o2c run counts
            other_pids = _backend_ids([o], BackendProcess)
            assert len(pids) == 1 and pids | other_pids == started
            [pid], [other_pid] = pids, other_pids
            meter = server_cpu_meter(mine.facts.server_processes, mine_url, pids)
            assert meter is not None
            procs = _hyperds()

            other_before, stop = _cpu(procs[other_pid]), meter()
            _burn(o, procs[other_pid])  # another engine's server busy: not this run's
            idle, other_burnt = stop(), _cpu(procs[other_pid]) - other_before
            assert other_burnt > 0.2 and idle < 0.25 * other_burnt, (idle, other_burnt)

            mine_before, stop = _cpu(procs[pid]), meter()
            _burn(s, procs[pid])  # this engine's own server busy: counted, all of it
            busy, mine_burnt = stop(), _cpu(procs[pid]) - mine_before
            assert busy > 0.2 and busy == pytest.approx(mine_burnt, abs=0.05), (busy, mine_burnt)
        finally:
            s.close()
            o.close()
    finally:
        mine.close()
        other.close()


def test_a_short_o2c_run_on_hyper_measures_its_server_cpu(tmp_path: Path) -> None:
    url = f"hyper:///{tmp_path / 'tpch.hyper'}"
    engine = open_engine(url)
    try:
        load_database(engine, 0.01, jobs=1)
        prepared = setup.prepare(engine, seed=5, users=4)
        cfg = RunConfig(users=4, think=0.02, rampup=0.3, steady=2.0, progress_interval=60)
        sim = Simulator(engine, prepared, cfg, url=url)
        probe = sim.run()
    finally:
        engine.close()
    assert sim.server_cpu_scope == OWN
    assert probe.steps.step and probe.server_cpu_seconds is not None
    assert probe.server_cpu_seconds > 0
    s = summarize(probe, 5.0)
    assert s.server_cpu_busy is not None and s.driver_cpu_busy is not None
    assert s.host_cpu_busy is not None
    # the server and the driver are parts of the host's busy time (sampling slack allowed)
    assert s.server_cpu_busy + s.driver_cpu_busy <= s.host_cpu_busy + 0.1
