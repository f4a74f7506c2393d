"""The local database server's CPU is measured apart from the driver's and the host's."""

from __future__ import annotations

import os
import threading
import time

import psutil
import pytest

from dbbench.drivers.engines.duckdb import DuckDBEngine
from dbbench.drivers.engines.mysql import MySqlEngine
from dbbench.drivers.engines.postgresql import PostgresEngine
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.servercpu import SHARED, attribution, server_cpu_meter
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c.metrics import summarize


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_local_postgresql_server_cpu_is_its_own_figure(tpch_url: str) -> None:
    engine = open_engine(tpch_url)
    try:
        prepared = setup.prepare(engine, seed=5, users=30)
        cfg = RunConfig(users=30, think=0.02, rampup=0.3, steady=2.0, progress_interval=60)
        probe = Simulator(engine, prepared, cfg, url=tpch_url).run()
    finally:
        engine.close()
    s = summarize(probe, 5.0)
    assert probe.server_cpu_seconds is not None and probe.server_cpu_seconds > 0
    assert s.server_cpu_busy is not None and s.driver_cpu_busy is not None
    assert s.host_cpu_busy is not None
    # the server and the driver are parts of the host's busy time (sampling slack allowed)
    assert s.server_cpu_busy + s.driver_cpu_busy <= s.host_cpu_busy + 0.1
    # the driver's own lag (due -> running) is recorded, ordered, and small next to the RT
    assert probe.driver_lag_p50 is not None and probe.driver_lag_p99 is not None
    assert 0 <= probe.driver_lag_p50 <= probe.driver_lag_p99 <= (probe.driver_lag_max or 0)
    assert s.driver_lag_p99 == probe.driver_lag_p99


def test_embedded_and_remote_engines_have_no_server_figure() -> None:
    duckdb = DuckDBEngine.facts.server_processes
    postgres = PostgresEngine.facts.server_processes  # the engine module states them
    assert duckdb == () and postgres == ("postgres",)
    assert server_cpu_meter(duckdb, "duckdb:///x.duckdb") is None  # inside the driver
    assert server_cpu_meter(postgres, "postgresql://u@db.example.com/x") is None  # remote
    assert server_cpu_meter(postgres, None) is None
    local = "postgresql://u@127.0.0.1/x"
    # the backends of the run's own connections are always attributable; without them the
    # host's postgres processes only while one instance runs (other tests may start more)
    assert server_cpu_meter(postgres, local, pids=[os.getpid()]) is not None
    alone = not attribution(postgres, local).startswith(SHARED)
    assert (server_cpu_meter(postgres, local) is not None) == alone


def _thread_cpu(tid: int) -> float:
    """CPU seconds of one thread of the host's MariaDB server, read apart from the kit."""
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") in MySqlEngine.facts.server_processes:
            for t in proc.threads():
                if t.id == tid:
                    return float(t.user_time + t.system_time)
    raise AssertionError(f"no server thread {tid}")


@pytest.mark.mariadb
@pytest.mark.parametrize("tpch_url", ["mariadb"], indirect=True)
def test_mariadb_server_cpu_leaves_out_another_tenants_query(tpch_url: str) -> None:
    """A CPU-heavy query on a connection that is not the benchmark's runs on the same
    MariaDB server for the whole run: the server CPU figure counts only the threads serving
    the run's own connections, so it stays far below what that tenant's thread burnt in
    the window (counting the whole ``mariadbd`` process, it would include all of it)."""
    tenant = open_engine(tpch_url)
    other = tenant.session()
    tid = other.backend_thread()  # type: ignore[attr-defined]
    assert tid is not None  # MariaDB names the OS thread of each connection
    done = threading.Event()

    def burn() -> None:
        while not done.is_set():  # about a second of one core per statement
            other.query("SELECT BENCHMARK(3000000, SHA2('dbbench', 512))")

    engine = open_engine(tpch_url)
    try:
        prepared = setup.prepare(engine, seed=5, users=4)
        cfg = RunConfig(users=4, think=0.2, rampup=0.3, steady=4.0, progress_interval=60)
        sim = Simulator(engine, prepared, cfg, url=tpch_url)
        burner = threading.Thread(target=burn)
        tenant_before, t0 = _thread_cpu(tid), time.monotonic()
        burner.start()
        try:
            probe = sim.run()
        finally:
            done.set()
            burner.join()
        tenant_cpu, elapsed = _thread_cpu(tid) - tenant_before, time.monotonic() - t0
    finally:
        engine.close()
        other.close()
        tenant.close()
    assert sim.server_cpu_scope == "the server threads serving the benchmark's own connections"
    window = probe.window_end - probe.window_start
    tenant_in_window = tenant_cpu / elapsed * window  # it burnt at a steady rate throughout
    assert tenant_in_window > 0.5, (tenant_cpu, elapsed)  # a real other tenant's load
    assert probe.server_cpu_seconds is not None and probe.server_cpu_seconds > 0
    assert probe.steps.step and probe.server_cpu_seconds < 0.25 * tenant_in_window, (
        probe.server_cpu_seconds,
        tenant_in_window,
    )
