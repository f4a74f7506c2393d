"""One step of a study (``drivers.sequencer.study``), the library under ``suite`` and
``scale``: a real DuckDB step becomes an outcome, its reports are asked for once, the resume
rule keeps it only for the same settings, and an unreachable engine is a failed step when the
caller calls its error the user's (else it propagates)."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import RunScope
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.drivers.sequencer.study import (
    StudyHooks,
    finished_before,
    run_step,
    same_settings,
)
from dbbench.drivers.sequencer.workload import TpchWorkload
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.tpch.model import BenchmarkResult


@contextlib.contextmanager
def _shown(scope: RunScope, workload: TpchWorkload) -> Iterator[Benchmark]:
    yield workload.benchmark(scope)


def _hooks(reported: list[Path], users: bool = True) -> StudyHooks[TpchWorkload, BenchmarkResult]:
    def user_error(exc: BaseException) -> str | None:
        return f"refused: {exc}" if users and isinstance(exc, DriversError) else None

    return StudyHooks(
        shown=_shown,
        write_reports=lambda result, out_dir: reported.append(out_dir),
        read_result=lambda run_dir: BenchmarkResult.read(run_dir / RESULT_FILE),
        user_error=user_error,
    )


def _power(bench: Benchmark) -> None:
    bench.load()
    bench.performance_run(1, throughput=False)


def test_a_step_runs_into_its_directory_and_resumes_only_with_its_settings(
    tmp_path: Path,
) -> None:
    options = RunOptions(sf=0.01, streams=1, runs=1, seed=7, telemetry_interval=None)
    out = tmp_path / "step"
    reported: list[Path] = []
    hooks = _hooks(reported)
    assert not finished_before(out, options, hooks)  # nothing there yet
    workload = TpchWorkload(options, _power, command="suite")
    url = f"duckdb:///{tmp_path / 'step.duckdb'}"
    outcome = run_step(url, workload, out, hooks, space_check=True)
    assert outcome.status == "ok" and outcome.message == "" and outcome.result is not None
    assert reported == [out]  # the reports once, after the step
    assert finished_before(out, options, hooks)
    assert same_settings(outcome.result, options)
    for changed in ({"seed": 8}, {"streams": 2}, {"runs": 2}, {"cold": True}):
        assert not finished_before(out, dataclasses.replace(options, **changed), hooks), changed
    (out / RESULT_FILE).write_text("{ damaged")
    assert not finished_before(out, options, hooks)  # unreadable: run again


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_engine_is_a_failed_step_or_propagates(tmp_path: Path) -> None:
    options = RunOptions(sf=0.01, streams=1, runs=1, seed=7, telemetry_interval=None)
    url = f"postgresql://postgres@127.0.0.1:{_closed_port()}/test"
    reported: list[Path] = []
    workload = TpchWorkload(options, _power, command="suite")
    outcome = run_step(url, workload, tmp_path / "a", _hooks(reported))
    assert outcome.status == "failed" and outcome.message.startswith("refused: ")
    assert outcome.result is None and reported == []
    with pytest.raises(DriversError):
        run_step(url, workload, tmp_path / "b", _hooks(reported, users=False))


@dataclasses.dataclass
class _Count:
    """A toy result: one count read from the engine, with its errors."""

    rows: int
    errors: list[str] = dataclasses.field(default_factory=list)

    def write(self, path: Path) -> None:
        path.write_text(f"{self.rows}\n")


class _CountWorkload:
    """A toy workload (not TPC-H: no scale factor, no partial result) over the protocol."""

    def __init__(self, rows: int, fail: bool = False) -> None:
        self.rows, self.fail = rows, fail

    def prepare(self, scope: RunScope) -> None:
        with contextlib.closing(scope.engine.session()) as s:
            s.execute(f"CREATE OR REPLACE TABLE toy AS SELECT * FROM range({self.rows})")

    def check(self, scope: RunScope) -> list[str]:
        return []

    def run(self, scope: RunScope) -> _Count:
        self.prepare(scope)
        with contextlib.closing(scope.engine.session()) as s:
            if self.fail:
                s.query("SELECT * FROM no_such_table")
            found = int(s.query("SELECT count(*) FROM toy").rows[0][0])
        result = _Count(found, [] if found == self.rows else [f"{found} rows, not {self.rows}"])
        scope.write(result)
        return result

    def cleanup(self, scope: RunScope) -> None:
        with contextlib.closing(scope.engine.session()) as s:
            s.execute("DROP TABLE IF EXISTS toy")


def test_a_study_step_runs_a_workload_that_is_not_tpch(tmp_path: Path) -> None:
    reported: list[tuple[int, Path]] = []

    @contextlib.contextmanager
    def shown(scope: RunScope, workload: _CountWorkload) -> Iterator[None]:
        yield

    hooks: StudyHooks[_CountWorkload, _Count] = StudyHooks(
        shown=shown,
        write_reports=lambda result, out_dir: reported.append((result.rows, out_dir)),
        read_result=lambda run_dir: _Count(int((run_dir / RESULT_FILE).read_text())),
        user_error=lambda exc: None,
    )
    url = f"duckdb:///{tmp_path / 'toy.duckdb'}"
    out = tmp_path / "toy"
    outcome = run_step(url, _CountWorkload(123), out, hooks, space_check=True)
    assert outcome.status == "ok" and outcome.result == _Count(123)
    assert reported == [(123, out)] and (out / RESULT_FILE).read_text() == "123\n"
    failed = run_step(url, _CountWorkload(5, fail=True), tmp_path / "bad", hooks)
    assert failed.status == "failed" and "no_such_table" in failed.message
    assert failed.result is None and len(reported) == 1  # no partial result to report
