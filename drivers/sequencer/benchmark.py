"""A benchmark from start to finish: load test, runs, the result file.

:class:`Benchmark` owns the run directory's two files: ``journal.jsonl`` (every event as it
happens) and ``result.json`` (the :class:`reports.tpch.model.BenchmarkResult`, rewritten
atomically after every phase and once more however the benchmark ends, so a stopped run
still leaves a readable partial result).

It records facts only. The compliance verdict comes from a ``judge`` the caller passes in
(the CLI passes ``reports.tpch.compliance.judge``); without one the result says "not evaluated".
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.journal import Journal
from dbbench.drivers.sequencer.answers import AnswerKeeper
from dbbench.drivers.sequencer.config import RunOptions, check_options
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.disclosure import disclosure_facts
from dbbench.drivers.sequencer.load import load_or_reuse, reuse
from dbbench.drivers.sequencer.passes import query_passes
from dbbench.drivers.sequencer.phases import power_test, throughput_test
from dbbench.drivers.sequencer.plans import capture_plans
from dbbench.drivers.sequencer.progress import RunProgress
from dbbench.drivers.sequencer.refresh import UpdateSets
from dbbench.drivers.sequencer.views import drop_leftover_views_quietly, record_views
from dbbench.drivers.signals import within
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.drivers.telemetry import Sampler, engine_probe, engine_scope
from dbbench.drivers.url import redact
from dbbench.drivers.workload_rows import workload_rows
from dbbench.queries.params import seed_from_time
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE, kit_version
from dbbench.reports.tpch.model import (
    ANSWERS_FILE,
    DISCLOSURE_KEY,
    Answers,
    BenchmarkResult,
    Compliance,
    RunResult,
    not_evaluated,
)

#: Seconds the telemetry sampler gets to stop, and the storage size to be read, at the end.
_STOP_SECONDS = 5.0

#: Decides a result's compliance from its facts (``reports.tpch.compliance.judge``).
Judge = Callable[[BenchmarkResult], Compliance]


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
        progress: RunProgress | None = None,
        judge: Judge | None = None,
    ) -> None:
        check_options(options)
        self.out_dir = out_dir
        self.options = options
        self.journal = Journal(out_dir / JOURNAL_FILE)
        self.ctx = RunContext(engine, options, self.journal, progress=progress or RunProgress())
        self.ctx.answers = AnswerKeeper() if options.answers else None
        self.sets = UpdateSets(engine, options.sf)
        self.judge = judge
        self.seed_time = time.time()
        #: the phase a stopped run was in when it stopped (None while it goes on)
        self.stopped_in: str | None = None
        interval = options.telemetry_interval
        self.sampler = (
            Sampler(interval, engine_scope(url), engine_probe(engine)) if interval else None
        )
        self.result = BenchmarkResult(
            scale_factor=options.sf,
            streams=options.streams,
            engine=engine_info(engine, url),
            system=system_info(),
            kit_version=kit_version(),
            created=time.time(),
            config=_config(options, command),
        )
        # the engine's preflight facts, for the report's configuration warnings
        # (``reports.tpch.fairness.CONFIG_KEY``: reports import no engine)
        self.result.config["preflight"] = engine.facts.preflight_facts()
        self.journal.event(
            "benchmark_start", command=command, engine=redact(url), sf=options.sf,
            streams=options.streams, runs=options.runs, view_token=self.ctx.token,
        )  # fmt: skip

    @property
    def result_path(self) -> Path:
        return self.out_dir / RESULT_FILE

    def execute(self, steps: Callable[[Benchmark], None]) -> BenchmarkResult:
        """Run ``steps``; however they end, leave a result file and the verdict in it."""
        if self.sampler is not None:
            self.sampler.start()
        try:
            steps(self)
            if self.result.load is not None and self.result.runs:  # what the test left
                self._disclosure_facts("after_test")
            self.keep_answers()
            self.query_passes()
            self.capture_plans()
        except BaseException as exc:
            # the phase it stopped in, before the keeping below starts phases of its own
            self.stopped_in = self.ctx.progress.snapshot().phase
            with contextlib.suppress(Exception):  # what a stopped run measured is kept
                self.keep_answers()
            self._finish(stopped=_stop_reason(exc))
            raise
        self._finish(stopped=None)
        return self.result

    def load(self, *, reload: bool = False) -> None:
        """The load test, or the reuse of an already loaded database (then not compliant)."""
        self.ctx.progress.start_phase("load", [], 0, 0)
        self._drop_leftover_views()
        repaired: list[str] = []
        self.result.load = load_or_reuse(self.ctx, reload=reload, notes=repaired)
        self._repaired(repaired)
        self._o2c_workload()
        self.seed_time = self.result.load.end
        self._refresh_storage()
        self._disclosure_facts("after_load")
        self.checkpoint()

    def require_loaded(self) -> None:
        """For a power or throughput test on its own: the database must be loaded already."""
        self._drop_leftover_views()
        repaired: list[str] = []
        self.result.load = reuse(self.ctx, repaired)
        self._repaired(repaired)
        self._o2c_workload()
        self.seed_time = self.result.load.end
        self.checkpoint()

    def performance_run(self, number: int, *, power: bool = True, throughput: bool = True) -> None:
        """One run: the power test, then at once the throughput test."""
        run = RunResult(number=number, streams=self.options.streams, seeds=self._seeds())
        self.result.runs.append(run)
        self.journal.event("run_start", run=number, seeds=run.seeds)
        record_views(self.ctx.engine, self.ctx.token, number, self.options.streams)
        if power:
            power_test(self.ctx, self.sets, run)
            self.checkpoint()
        if throughput:
            throughput_test(self.ctx, self.sets, run)
            self.checkpoint()
        self.seed_time = self.ctx.clock.now()
        self.journal.event("run_end", run=number, update_sets=run.update_sets)

    def keep_answers(self) -> None:
        """Every query's output, digested and written after the measured work (the
        answers file); with ``--no-answers`` the result says they were not kept."""
        if not self.result.runs:
            return
        keeper = self.ctx.answers
        if keeper is None:
            self.result.answers = Answers(kept=False)
            return
        if self.result.answers is not None:
            return  # written once
        self.ctx.progress.start_phase("answers", [], 0, 0)
        self.result.answers = answers = keeper.write(self.out_dir / ANSWERS_FILE)
        self.journal.event(
            "answers_kept", outputs=len(answers.records), bytes=answers.bytes,
            seconds=answers.seconds,
        )  # fmt: skip
        self.checkpoint()

    def query_passes(self) -> None:
        """A study's cold and hot passes (``--cold``, ``--repetitions``), after the runs."""
        if self.options.repetitions < 1 or not self.result.runs:
            return
        self.ctx.progress.start_phase("cold/hot passes", [], 0, 0)
        cold, reps = self.options.cold, self.options.repetitions
        self.result.passes = query_passes(self.ctx, cold=cold, repetitions=reps)
        self.checkpoint()

    def capture_plans(self) -> None:
        """Every query's plan as run, after the measured work (``--plans``). A capture that
        cannot even start is a note, not a problem: plans are not measurements."""
        runs = [run for run in self.result.runs if run.params]
        if self.options.plans == "off" or not runs:
            return
        self.ctx.progress.start_phase("plans", [], 0, 0)
        try:
            self.result.plans = capture_plans(self.ctx, runs, self.out_dir, self.options.plans)
        except (DriversError, OSError) as exc:
            self.result.config["plans_error"] = one_line(exc)
            self.journal.event("plans_failed", error=one_line(exc))

    def _o2c_workload(self) -> None:
        """An o2c workload's own orders are in the tables the queries read: a fact the
        compliance verdict reports (the run still runs: its refresh keys never meet o2c's)."""
        rows = workload_rows(self.ctx.engine)
        if rows.get("orders"):
            self.result.config["o2c_workload_rows"] = rows
            self.journal.event("o2c_workload_present", rows=rows)

    def _drop_leftover_views(self) -> None:
        """Q15 views an earlier, stopped benchmark left (they would block a reload)."""
        tried = drop_leftover_views_quietly(self.ctx.engine)
        if tried:
            self.journal.event("q15_views_dropped", views=tried)

    def _repaired(self, what: list[str]) -> None:
        """A refresh pair an earlier stop left half-applied was repaired: a fact the
        compliance verdict reports."""
        if what:
            self.result.config["refresh_repaired"] = what

    def checkpoint(self) -> None:
        """Rewrite the (so far partial) result atomically."""
        self.result.errors = list(self.ctx.problems)
        if self.sampler is not None:
            self.result.telemetry = self.sampler.snapshot()
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

    def _disclosure_facts(self, when: str) -> None:
        """The database's own facts for ``dbbench disclose`` (:mod:`.disclosure`)."""
        facts = self.result.config.setdefault(DISCLOSURE_KEY, {})
        disclosure_facts(self.ctx, facts, when)

    def _finish(self, stopped: str | None) -> None:
        if stopped is not None:
            self.ctx.add_problem(f"the benchmark stopped early: {stopped}")
        measured = self.result.load is not None or any(r.intervals for r in self.result.runs)
        self.result.status = "complete" if stopped is None else "partial" if measured else "failed"
        self.result.errors = list(self.ctx.problems)
        self.result.compliance = self._verdict()
        if self.sampler is not None:  # its engine probe may wait on a server that is gone
            sampler = self.sampler
            self.result.telemetry = within(_STOP_SECONDS, sampler.stop) or sampler.snapshot()
        # a full disk: the result file below is still worth a try
        with contextlib.suppress(OSError):
            within(_STOP_SECONDS, self._refresh_storage)  # a server that is gone: no size
            self.journal.event("benchmark_end", status=self.result.status)
            self.journal.sync()
        try:
            self.result.write(self.result_path)
        finally:
            with contextlib.suppress(OSError):
                self.journal.close()

    def _verdict(self) -> Compliance:
        """The judge's verdict on the facts; a judge that fails must not cost the result."""
        if self.judge is None:
            return not_evaluated()
        try:
            return self.judge(self.result)
        except Exception as exc:  # the facts are written either way; reports judge again
            with contextlib.suppress(OSError):
                self.journal.event("judge_failed", error=one_line(exc))
            return not_evaluated()


def _config(options: RunOptions, command: str) -> dict[str, object]:
    return {
        "command": command,
        "scale_factor": options.sf,
        "streams": options.streams,
        "runs": options.runs,
        "seed": options.seed,
        "query_timeout": options.query_timeout,
        "executor": "threads",
        "telemetry_interval": options.telemetry_interval,
        "plans": options.plans,
        "repetitions": options.repetitions,
        "cold": options.cold,
        "answers": options.answers,
    }


def _stop_reason(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    return one_line(exc)
