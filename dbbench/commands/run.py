"""``dbbench run``, ``load``, ``power``, ``throughput``: the spec's test sequence.

Thin commands over :class:`drivers.sequencer.Benchmark`: they parse options, guard the run
directory, open the engine, show progress and turn the outcome into an exit code
(0 a valid run, 3 an invalid one, 130 interrupted, 1 a user error). ``run`` is the whole
benchmark; the other three are its parts for users who script their own sequence, and each
writes its own result file.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.commands.run_progress import show_progress
from dbbench.drivers.errors import ConnectionLostError
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import (
    Benchmark,
    Progress,
    RunOptions,
    prepare_run_dir,
    remove_if_empty,
)
from dbbench.drivers.sequencer.config import check_options
from dbbench.errors import ExitCode
from dbbench.reports.compliance import judge, messages
from dbbench.reports.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.model import DUCKDB_FILE, BenchmarkResult, default_streams
from dbbench.reports.render import write_reports

Engine = Annotated[
    str, typer.Option("--engine", "-e", help="Engine URL; 'duckdb': a file in --out.")
]
Out = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Run directory (default: runs/ENGINE-sfSF-TIME)."),
]
Force = Annotated[bool, typer.Option("--force", help="Replace an existing run directory.")]
Seed = Annotated[
    int | None,
    typer.Option("--seed", help="seed0 for every run (default: from the end of the load)."),
]
Timeout = Annotated[
    float | None, typer.Option("--query-timeout", help="Cancel a query after SECONDS.")
]
Streams = Annotated[
    int | None,
    typer.Option("--streams", "-S", help="Throughput streams (default: the spec minimum)."),
]
Jobs = Annotated[int | None, typer.Option("--jobs", "-j", help="Generator processes for the load.")]
Runs = Annotated[int, typer.Option("--runs", help="Performance runs (the spec requires 2).")]
CostSheetOpt = Annotated[
    Path | None, typer.Option("--cost-sheet", help="TOML cost sheet for $/QphH.")
]
TelemetryOpt = Annotated[
    float,
    typer.Option("--telemetry-interval", help="Seconds between resource samples; 0: off."),
]
Reload = Annotated[bool, typer.Option("--reload", help="Load even if the database is loaded.")]


def _out_dir(out: Path | None, engine: str, sf: float) -> Path:
    if out is not None:
        return out
    name = engine.split(":", 1)[0].split("+", 1)[0] or "engine"
    return Path("runs") / f"{name}-sf{sf:g}-{time.strftime('%Y%m%d-%H%M%S')}"


def _engine_url(engine: str, out_dir: Path) -> str:
    """Bare ``duckdb`` means a database file inside the run directory."""
    if engine.strip() == "duckdb":
        return f"duckdb:///{(out_dir / DUCKDB_FILE).resolve()}"
    return engine


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """``kill`` stops a run as cleanly as Ctrl-C (partial result, journal kept); the previous
    handler comes back afterwards (the CLI may run inside another program, e.g. tests)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: signals cannot be handled here anyway
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _write_reports(
    result: BenchmarkResult, out_dir: Path, cost_sheet: CostSheet | None
) -> list[Path]:
    return write_reports(result, out_dir, cost_sheet=cost_sheet)


def _outcome(bench: Benchmark, cost_sheet: CostSheet | None) -> None:
    """Write the reports, print where everything is, and exit with the right code."""
    result = bench.result
    reports = _write_reports(result, bench.out_dir, cost_sheet)
    typer.echo(f"result: {bench.result_path}")
    for path in reports:
        typer.echo(f"report: {path}")
    if result.compliance.reasons and not result.errors:
        typer.echo(f"not compliant: {'; '.join(messages(result.compliance))}", err=True)
    if result.errors:
        typer.echo(f"dbbench: the run is invalid: {result.errors[0]}", err=True)
        if len(result.errors) > 1:
            typer.echo(f"dbbench: ... and {len(result.errors) - 1} more problem(s)", err=True)
        raise typer.Exit(ExitCode.INVALID_RUN)


def execute(
    command: str,
    engine: str,
    options: RunOptions,
    out: Path | None,
    force: bool,
    steps: Callable[[Benchmark], None],
    cost_sheet: Path | None = None,
) -> None:
    """The shared path of the four commands."""
    sheet = load_cost_sheet(cost_sheet) if cost_sheet is not None else None  # fail fast
    check_options(options)
    out_dir = _out_dir(out, engine, options.sf)
    created = prepare_run_dir(out_dir, force=force)
    url = _engine_url(engine, out_dir)
    try:
        db = open_engine(url)
    except BaseException:
        if created:
            remove_if_empty(out_dir)
        raise
    progress = Progress()
    try:
        bench = Benchmark(
            db, url, options, out_dir, command=command, progress=progress, judge=judge
        )
        warn_unfair(bench.result)
        with _sigterm_as_interrupt(), show_progress(progress, sys.stderr):
            try:
                bench.execute(steps)
            except ConnectionLostError as exc:
                _stopped(bench, sheet, f"the connection to the engine was lost: {exc}")
            except KeyboardInterrupt:
                _write_reports_quietly(bench, sheet)
                typer.echo("dbbench: interrupted; everything measured so far was kept", err=True)
                typer.echo(f"dbbench: partial result: {bench.result_path}", err=True)
                raise typer.Exit(ExitCode.INTERRUPTED) from None
    finally:
        db.close()
    _outcome(bench, sheet)


def _stopped(bench: Benchmark, cost_sheet: CostSheet | None, why: str) -> None:
    _write_reports_quietly(bench, cost_sheet)
    typer.echo(f"dbbench: {why}", err=True)
    typer.echo(f"dbbench: partial result: {bench.result_path}", err=True)
    raise typer.Exit(ExitCode.INVALID_RUN)


def _write_reports_quietly(bench: Benchmark, cost_sheet: CostSheet | None) -> None:
    # a partial result may not be reportable; the result file is there either way
    with contextlib.suppress(Exception):
        _write_reports(bench.result, bench.out_dir, cost_sheet)


def warn_unfair(result: BenchmarkResult) -> None:
    # imported here: the preflight command module imports this one
    from dbbench.commands.preflight import warn_unfair as warn

    warn(result)


def _options(
    sf: float,
    streams: int | None,
    seed: int | None,
    timeout: float | None,
    runs: int = 2,
    jobs: int | None = None,
    telemetry: float = 1.0,
) -> RunOptions:
    return RunOptions(
        sf=sf,
        streams=streams if streams is not None else default_streams(sf),
        runs=runs,
        seed=seed,
        query_timeout=timeout,
        jobs=jobs,
        telemetry_interval=telemetry if telemetry != 0 else None,
    )


def run(
    engine: Engine = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    streams: Streams = None,
    out: Out = None,
    force: Force = False,
    seed: Seed = None,
    query_timeout: Timeout = None,
    runs: Runs = 2,
    cost_sheet: CostSheetOpt = None,
    reload: Reload = False,
    jobs: Jobs = None,
    telemetry_interval: TelemetryOpt = 1.0,
) -> None:
    """The whole benchmark: load test, then each run's power and throughput tests."""
    options = _options(
        scale_factor, streams, seed, query_timeout, runs, jobs, telemetry=telemetry_interval
    )

    def steps(bench: Benchmark) -> None:
        bench.load(reload=reload)
        for number in range(1, options.runs + 1):
            bench.performance_run(number)

    execute("run", engine, options, out, force, steps, cost_sheet)


def load(
    engine: Engine = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    out: Out = None,
    force: Force = False,
    jobs: Jobs = None,
) -> None:
    """The load test alone (always loads, replacing the eight tables)."""
    options = _options(scale_factor, None, None, None, jobs=jobs)
    execute("load", engine, options, out, force, lambda b: b.load(reload=True))


def power(
    engine: Engine = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    out: Out = None,
    force: Force = False,
    seed: Seed = None,
    query_timeout: Timeout = None,
) -> None:
    """The power test alone on an already loaded database (RF1, stream 0, RF2)."""
    options = _options(scale_factor, None, seed, query_timeout, runs=1)

    def steps(bench: Benchmark) -> None:
        bench.require_loaded()
        bench.performance_run(1, throughput=False)

    execute("power", engine, options, out, force, steps)


def throughput(
    engine: Engine = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    streams: Streams = None,
    out: Out = None,
    force: Force = False,
    seed: Seed = None,
    query_timeout: Timeout = None,
) -> None:
    """The throughput test alone on an already loaded database."""
    options = _options(scale_factor, streams, seed, query_timeout, runs=1)

    def steps(bench: Benchmark) -> None:
        bench.require_loaded()
        bench.performance_run(1, power=False)

    execute("throughput", engine, options, out, force, steps)


def register(app: typer.Typer) -> None:
    """Add ``run``, ``load``, ``power`` and ``throughput`` to the app."""
    app.command("run")(run)
    app.command("load")(load)
    app.command("power")(power)
    app.command("throughput")(throughput)
