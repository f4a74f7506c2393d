"""TPC-H as a :class:`~dbbench.drivers.lifecycle.Workload`: the same four verbs as o2c and
HammerDB, over the run lifecycle's scope.

``prepare`` loads the database (unmeasured, as ``dbbench validate`` does); ``check`` says
whether it holds exactly what a load and the completed refresh pairs left; ``run`` is a
:class:`Benchmark` of the given steps (load test, power and throughput tests) into the
scope's run directory, returning its result (written as it goes, partial if stopped);
``cleanup`` drops the Q15 views a stopped run left behind.
"""

from __future__ import annotations

from collections.abc import Callable

from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.lifecycle import RunScope
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.sequencer.benchmark import Benchmark, Judge
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.progress import RunProgress
from dbbench.drivers.sequencer.views import drop_leftover_views_quietly
from dbbench.reports.tpch.model import BenchmarkResult


class TpchWorkload:
    """The TPC-H test sequence ``steps`` at ``options`` (a workload of the lifecycle)."""

    def __init__(
        self,
        options: RunOptions,
        steps: Callable[[Benchmark], None],
        *,
        command: str = "run",
        judge: Judge | None = None,
        progress: RunProgress | None = None,
    ) -> None:
        self.options = options
        self.steps = steps
        self.command = command
        self.judge = judge
        self.progress = progress or RunProgress()
        self._bench: Benchmark | None = None

    @property
    def load_sf(self) -> float:
        """The scale factor ``prepare`` loads (:class:`~dbbench.drivers.lifecycle.LoadsAtScale`)."""
        return self.options.sf

    def partial(self) -> BenchmarkResult | None:
        """The result so far (:class:`~dbbench.drivers.lifecycle.KeepsPartial`)."""
        return None if self._bench is None else self._bench.result

    def prepare(self, scope: RunScope) -> None:
        load_database(scope.engine, self.options.sf)

    def check(self, scope: RunScope) -> list[str]:
        try:
            check_loaded(scope.engine, self.options.sf)
        except DriversError as exc:
            return [one_line(exc)]
        return []

    def benchmark(self, scope: RunScope) -> Benchmark:
        """The benchmark of this run (made once; its journal starts at once)."""
        if self._bench is None:
            if scope.out_dir is None:
                raise DriversError("a TPC-H run needs a run directory")
            self._bench = Benchmark(
                scope.engine, scope.url, self.options, scope.out_dir, command=self.command,
                progress=self.progress, judge=self.judge,
            )  # fmt: skip
        return self._bench

    def run(self, scope: RunScope) -> BenchmarkResult:
        return self.benchmark(scope).execute(self.steps)

    def cleanup(self, scope: RunScope) -> None:
        drop_leftover_views_quietly(scope.engine)
