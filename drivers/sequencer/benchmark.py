"""A benchmark from start to finish: load test, runs, the result file, the verdict.

:class:`Benchmark` owns the run directory's two files: ``journal.jsonl`` (every event as it
happens) and ``result.json`` (the :class:`reports.model.BenchmarkResult`, rewritten
atomically after every phase and once more however the benchmark ends, so a stopped run
still leaves a readable partial result).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from dbbench.drivers.engine import Engine
from dbbench.drivers.journal import Journal
from dbbench.drivers.sequencer.config import RunOptions, check_options, setup_reasons
from dbbench.drivers.sequencer.context import RunContext, one_line
from dbbench.drivers.sequencer.load import load_or_reuse, reuse
from dbbench.drivers.sequencer.phases import power_test, throughput_test
from dbbench.drivers.sequencer.progress import Progress
from dbbench.drivers.sequencer.refresh import UpdateSets
from dbbench.drivers.sysinfo import engine_info, kit_version, system_info
from dbbench.drivers.url import redact
from dbbench.queries.params import seed_from_time
from dbbench.reports.model import BenchmarkResult, Compliance, RunResult

RESULT_FILE = "result.json"
JOURNAL_FILE = "journal.jsonl"


class Benchmark:
    """One benchmark on one engine, writing into one run directory."""

    def __init__(
        self,
        engine: Engine,
        url: str,
        options: RunOptions,
        out_dir: Path,
        *,
        command: str = "run",
        progress: Progress | None = None,
    ) -> None:
        check_options(options)
        self.out_dir = out_dir
        self.options = options
        self.journal = Journal(out_dir / JOURNAL_FILE)
        self.ctx = RunContext(engine, options, self.journal, progress=progress or Progress())
        self.sets = UpdateSets(engine, options.sf)
        self.notes: list[str] = []  # compliance reasons found on the way (a reused database)
        self.seed_time = time.time()
        self.result = BenchmarkResult(
            scale_factor=options.sf,
            streams=options.streams,
            engine=engine_info(engine, url),
            system=system_info(),
            kit_version=kit_version(),
            created=time.time(),
            config=_config(options, command),
        )
        self.journal.event(
            "benchmark_start", command=command, engine=redact(url), sf=options.sf,
            streams=options.streams, runs=options.runs,
        )  # fmt: skip

    @property
    def result_path(self) -> Path:
        return self.out_dir / RESULT_FILE

    def execute(self, steps: Callable[[Benchmark], None]) -> BenchmarkResult:
        """Run ``steps``; however they end, leave a result file and the verdict in it."""
        try:
            steps(self)
        except BaseException as exc:
            self._finish(stopped=_stop_reason(exc))
            raise
        self._finish(stopped=None)
        return self.result

    def load(self, *, reload: bool = False) -> None:
        """The load test, or the reuse of an already loaded database (then not compliant)."""
        self.ctx.progress.start_phase("load", [], 0, 0)
        self.result.load = load_or_reuse(self.ctx, reload=reload, notes=self.notes)
        if self.result.load.reused:
            self.notes.append("the database was reused: its load test was not measured here")
        self.seed_time = self.result.load.end
        self._refresh_storage()
        self.checkpoint()

    def require_loaded(self) -> None:
        """For a power or throughput test on its own: the database must be loaded already."""
        self.result.load = reuse(self.ctx, self.notes)
        self.notes.append("the load test was not part of this invocation")
        self.seed_time = self.result.load.end
        self.checkpoint()

    def performance_run(self, number: int, *, power: bool = True, throughput: bool = True) -> None:
        """One run: the power test, then at once the throughput test."""
        run = RunResult(number=number, streams=self.options.streams, seeds=self._seeds())
        self.result.runs.append(run)
        self.journal.event("run_start", run=number, seeds=run.seeds)
        if power:
            power_test(self.ctx, self.sets, run)
            self.checkpoint()
        if throughput:
            throughput_test(self.ctx, self.sets, run)
            self.checkpoint()
        self.seed_time = self.ctx.clock.now()
        self.journal.event("run_end", run=number, update_sets=run.update_sets)

    def checkpoint(self) -> None:
        """Rewrite the (so far partial) result atomically."""
        self.result.errors = list(self.ctx.problems)
        self.result.write(self.result_path)

    def _seeds(self) -> dict[str, int]:
        """seed0 from the end of the load (run 1) or of the previous run (clause 2.1.3.3)."""
        if self.options.seed is not None:
            seed0 = self.options.seed
        else:
            seed0 = seed_from_time(datetime.fromtimestamp(self.seed_time))
        return {str(s): seed0 + s for s in range(self.options.streams + 1)}

    def _refresh_storage(self) -> None:
        if self.ctx.engine.capabilities.storage_size:
            # disclosure only; never stops a run
            with contextlib.suppress(Exception):
                self.result.engine.storage_bytes = self.ctx.engine.storage_bytes()

    def _finish(self, stopped: str | None) -> None:
        if stopped is not None:
            self.ctx.add_problem(f"the benchmark stopped early: {stopped}")
        measured = self.result.load is not None or any(r.intervals for r in self.result.runs)
        self.result.status = "complete" if stopped is None else "partial" if measured else "failed"
        self.result.errors = list(self.ctx.problems)
        self.result.compliance = self._verdict()
        # a full disk: the result file below is still worth a try
        with contextlib.suppress(OSError):
            self._refresh_storage()
            self.journal.event("benchmark_end", status=self.result.status)
            self.journal.sync()
        try:
            self.result.write(self.result_path)
        finally:
            with contextlib.suppress(OSError):
                self.journal.close()

    def _verdict(self) -> Compliance:
        reasons = setup_reasons(self.options) + self.notes
        seen: set[int] = set()
        for run in self.result.runs:
            for number in run.update_sets:
                if number in seen:
                    reasons.append(f"update set {number} was used twice")
                seen.add(number)
        reasons += self.result.errors
        return Compliance(compliant=not reasons, reasons=reasons)


def _config(options: RunOptions, command: str) -> dict[str, object]:
    return {
        "command": command,
        "scale_factor": options.sf,
        "streams": options.streams,
        "runs": options.runs,
        "seed": options.seed,
        "query_timeout": options.query_timeout,
        "executor": "threads",
    }


def _stop_reason(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    return one_line(exc)
