"""TPC-H and o2c are one workload protocol (prepare / check / run / cleanup -> result) over
one run lifecycle: the same four verbs on the same scope, on one real DuckDB database."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from dbbench.drivers.lifecycle import Workload, open_run
from dbbench.drivers.o2c.simulator import Progress, RunConfig
from dbbench.drivers.o2c.study import O2CWorkload
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.drivers.sequencer.workload import TpchWorkload
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.model import BenchmarkResult


class Quiet:
    """A display that shows nothing (the protocol's ``Display``)."""

    label = ""

    def __call__(self, progress: Progress, /) -> None:
        pass

    def note(self, line: str) -> None:
        pass

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        yield


def _power(bench: Benchmark) -> None:
    bench.require_loaded()
    bench.performance_run(1, throughput=False)


def test_tpch_and_o2c_through_one_protocol(tmp_path: Path) -> None:
    url = f"duckdb:///{tmp_path / 'w.duckdb'}"
    options = RunOptions(sf=0.01, streams=1, runs=1, seed=5, telemetry_interval=None)
    tpch = TpchWorkload(options, _power, command="power")
    assert isinstance(tpch, Workload)
    out = tmp_path / "run"
    with open_run([url], out_dir=out) as scope:
        assert tpch.check(scope)  # an empty database: not loaded
        tpch.prepare(scope)
        assert tpch.check(scope) == []
        result = tpch.run(scope)
        tpch.cleanup(scope)
    assert result.status == "complete" and not result.errors
    assert BenchmarkResult.read(out / RESULT_FILE).status == "complete"  # written as it went

    config = RunConfig(users=4, think=0.05, rampup=0.2, steady=1.0, progress_interval=60)
    path = tmp_path / "o2c.json"
    o2c = O2CWorkload(seed=3, users=4, config=config, shown=Quiet(), path=path, rt_limit=5.0)
    assert isinstance(o2c, Workload)
    with open_run([url]) as scope:
        o2c.prepare(scope)
        found = o2c.run(scope)
        assert o2c.check(scope) == []
        report = o2c.cleanup(scope)
    assert found.probes[0].users == 4 and not found.probes[0].errors
    assert O2CResult.read(path).probes[0].users == 4
    assert report.touched_equal and report.fingerprints_equal
    with open_run([url], out_dir=tmp_path / "again") as scope:
        assert tpch.check(scope) == []  # o2c's cleanup restored the TPC-H tables
