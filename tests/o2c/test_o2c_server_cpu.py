"""The local database server's CPU is measured apart from the driver's and the host's."""

from __future__ import annotations

import pytest

from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.servercpu import server_cpu_meter
from dbbench.drivers.o2c.simulator import RunConfig, run_probe
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c_metrics import summarize


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_local_postgresql_server_cpu_is_its_own_figure(tpch_url: str) -> None:
    engine = open_engine(tpch_url)
    try:
        prepared = setup.prepare(engine, seed=5, users=30)
        cfg = RunConfig(users=30, think=0.02, rampup=0.3, steady=2.0, progress_interval=60)
        probe = run_probe(engine, prepared, cfg, url=tpch_url)
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
    assert server_cpu_meter("duckdb", "duckdb:///x.duckdb") is None  # inside the driver
    assert server_cpu_meter("postgresql", "postgresql://u@db.example.com/x") is None  # remote
    assert server_cpu_meter("postgresql", None) is None
    assert server_cpu_meter("postgresql", "postgresql://u@127.0.0.1/x") is not None
