"""One benchmark inside a study (suite entry, scaling step): run it, keep its directory,
and report how it ended instead of exiting, so the study goes on with the next one."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbbench.commands.preflight import warn_unfair
from dbbench.commands.run_progress import show_progress
from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import (
    Benchmark,
    Progress,
    RunOptions,
    prepare_run_dir,
    remove_if_empty,
)
from dbbench.errors import USER_ERRORS, error_line
from dbbench.reports.compliance import judge
from dbbench.reports.costsheet import CostSheet
from dbbench.reports.model import DUCKDB_FILE, BenchmarkResult
from dbbench.reports.render import write_reports


@dataclass
class Outcome:
    status: str  # ok, invalid (the run has errors), failed (nothing usable)
    message: str = ""
    result: BenchmarkResult | None = None


def engine_url(engine: str, db_dir: Path) -> str:
    """Bare ``duckdb``: a database file in ``db_dir``; anything else as given."""
    if engine.strip() == "duckdb":
        return f"duckdb:///{(db_dir / DUCKDB_FILE).resolve()}"
    return engine


def run_benchmark(
    url: str,
    options: RunOptions,
    out_dir: Path,
    steps: Callable[[Benchmark], None],
    *,
    command: str,
    cost_sheet: CostSheet | None = None,
) -> Outcome:
    """Run ``steps`` into ``out_dir`` (replaced); a failure becomes the outcome, not an exit.
    Ctrl-C still stops the whole study (after the partial result is written)."""
    prepare_run_dir(out_dir, force=True)
    try:
        db = open_engine(url)
    except USER_ERRORS as exc:
        remove_if_empty(out_dir)
        return Outcome("failed", error_line(exc).removeprefix("dbbench: error: ").strip())
    try:
        progress = Progress()
        bench = Benchmark(
            db, url, options, out_dir, command=command, progress=progress, judge=judge
        )
        warn_unfair(bench.result)
        with show_progress(progress, sys.stderr):
            try:
                bench.execute(steps)
            except (DriversError, OSError) as exc:
                _reports(bench.result, out_dir, cost_sheet)
                return Outcome("failed", one_line(exc), bench.result)
    finally:
        db.close()
    _reports(bench.result, out_dir, cost_sheet)
    result = bench.result
    if result.errors:
        return Outcome("invalid", result.errors[0], result)
    return Outcome("ok", "", result)


def _reports(result: BenchmarkResult, out_dir: Path, sheet: CostSheet | None) -> None:
    try:
        write_reports(result, out_dir, cost_sheet=sheet)
    except Exception as exc:  # a partial result may not be reportable; result.json is kept
        sys.stderr.write(f"dbbench: no report for {out_dir}: {one_line(exc)}\n")
