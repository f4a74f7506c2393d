"""The CLI's side of a study's steps (a suite's entry, a scaling study's step): what
:func:`drivers.sequencer.study.run_step` is handed to show a step, write its reports, read a
finished one and word a user's error. The step itself is the library's."""

from __future__ import annotations

import sys
from pathlib import Path

from dbbench.commands.run_progress import benchmark_shown
from dbbench.drivers.errors import one_line
from dbbench.drivers.sequencer.study import StudyHooks
from dbbench.drivers.sequencer.workload import TpchWorkload
from dbbench.errors import USER_ERRORS, error_line
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.render import write_reports

#: The line a study prints when Ctrl-C or ``kill`` stopped it.
INTERRUPTED = "dbbench: interrupted; the finished steps and the partial result were kept"


def study_hooks(cost_sheet: CostSheet | None = None) -> StudyHooks[TpchWorkload, BenchmarkResult]:
    """The hooks of a step whose reports use ``cost_sheet``."""

    def reports(result: BenchmarkResult, out_dir: Path) -> None:
        try:
            write_reports(result, out_dir, cost_sheet=cost_sheet)
        except Exception as exc:  # a partial result may not be reportable; result.json is kept
            sys.stderr.write(f"dbbench: no report for {out_dir}: {one_line(exc)}\n")

    return StudyHooks(benchmark_shown, reports, load_result, _user_error)


def _user_error(exc: BaseException) -> str | None:
    if not isinstance(exc, USER_ERRORS):
        return None
    return error_line(exc).removeprefix("dbbench: error: ").strip()
