"""The spec's test sequence: load test, power test, throughput test, refresh functions.

Use :class:`Benchmark` with a :class:`RunOptions`; :func:`prepare_run_dir` guards the
run directory. Everything measured goes to the run's journal as it happens and to the
result file (:class:`reports.tpch.model.BenchmarkResult`) after each phase.
"""

from dbbench.drivers.rundir import prepare_run_dir, remove_if_empty
from dbbench.drivers.sequencer.benchmark import Benchmark
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.progress import REFRESH_SETS, ProgressSnapshot, RunProgress
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE

__all__ = [
    "JOURNAL_FILE",
    "REFRESH_SETS",
    "RESULT_FILE",
    "Benchmark",
    "ProgressSnapshot",
    "RunOptions",
    "RunProgress",
    "prepare_run_dir",
    "remove_if_empty",
]
