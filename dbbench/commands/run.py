"""``dbbench run``, ``load``, ``power``, ``throughput``: the spec's test sequence.

Thin commands over :class:`drivers.sequencer.Benchmark`: they parse options, guard the run
directory, open the engine, show progress and turn the outcome into an exit code
(0 a valid run, 3 an invalid one, 130 interrupted, 1 a user error). ``run`` is the whole
benchmark; the other three are its parts for users who script their own sequence, and each
writes its own result file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.commands.run_progress import phase_breakdown, show_progress
from dbbench.commands.signals import sigterm_as_interrupt
from dbbench.drivers.errors import ConnectionLostError
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import (
    Benchmark,
    RunOptions,
    RunProgress,
    prepare_run_dir,
    remove_if_empty,
)
from dbbench.drivers.sequencer.config import check_options
from dbbench.drivers.sequencer.rundir import release_run_dir, unfinished_run
from dbbench.drivers.url import parse_url
from dbbench.errors import DbbenchError, ExitCode, error_line
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
NoSpaceCheck = Annotated[
    bool,
    typer.Option("--no-space-check", help="Load even if the database seems not to fit its disk."),
]


def _out_dir(out: Path | None, engine: str, sf: float) -> Path:
    if out is not None:
        return out
    name = engine.split(":", 1)[0].split("+", 1)[0] or "engine"
    if not name.replace("-", "").replace("_", "").isalnum():  # e.g. -e some/path
        name = "engine"
    # the process id and milliseconds: two runs started in the same second never collide
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}.{int(time.time() * 1000) % 1000:03d}"
    return Path("runs") / f"{name}-sf{sf:g}-{stamp}-{os.getpid()}"


def _engine_url(engine: str, out_dir: Path) -> str:
    """Bare ``duckdb`` means a database file inside the run directory."""
    if engine.strip() == "duckdb":
        return f"duckdb:///{(out_dir / DUCKDB_FILE).resolve()}"
    return engine


def _write_reports(
    result: BenchmarkResult, out_dir: Path, cost_sheet: CostSheet | None
) -> list[Path]:
    return write_reports(result, out_dir, cost_sheet=cost_sheet)


def _outcome(bench: Benchmark, cost_sheet: CostSheet | None, progress: RunProgress) -> None:
    """Write the reports, print where everything is and where the time went, and exit with
    the right code."""
    result = bench.result
    progress.start_phase("reports", [], 0, 0)
    reports = _write_reports(result, bench.out_dir, cost_sheet)
    progress.end_phase()
    typer.echo(f"result: {bench.result_path}")
    for path in reports:
        typer.echo(f"report: {path}")
    typer.echo(phase_breakdown(progress))
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
    space_check: bool = False,
) -> None:
    """The shared path of the four commands."""
    sheet = load_cost_sheet(cost_sheet) if cost_sheet is not None else None  # fail fast
    check_options(options)
    if engine.strip() != "duckdb":
        parse_url(engine)  # a malformed URL is refused before any directory is made
    out_dir = _out_dir(out, engine, options.sf)
    if space_check:
        _check_space(_engine_url(engine, out_dir), options.sf)
    keep: tuple[str, ...] = ()
    if command in ("power", "throughput") and engine.strip() == "duckdb":
        keep = _loaded_duckdb(command, out, out_dir)
    dropped = unfinished_run(out_dir) if force else None
    created = prepare_run_dir(out_dir, force=force, keep=keep)
    if dropped is not None:
        typer.echo(f"dbbench: --force replaced {dropped} in {out_dir}", err=True)
    url = _engine_url(engine, out_dir)
    try:
        db = open_engine(url)
    except BaseException:
        _give_up(out_dir, created)
        raise
    try:
        db.lock_benchmark()  # a second run on the same database is refused here
    except BaseException:
        db.close()
        _give_up(out_dir, created)
        raise
    progress = RunProgress()
    with sigterm_as_interrupt():
        try:
            bench = Benchmark(
                db, url, options, out_dir, command=command, progress=progress, judge=judge
            )
            warn_unfair(bench.result)
            with show_progress(progress, sys.stderr):
                try:
                    bench.execute(steps)
                except ConnectionLostError as exc:
                    _stopped(bench, sheet, f"the connection to the engine was lost: {exc}")
                except OSError as exc:  # a full disk, most likely
                    _write_reports_quietly(bench, sheet)
                    phase = progress.snapshot().phase
                    if exc.filename is None:  # e.g. the result file's write: name the place
                        exc.filename = str(out_dir)
                    typer.echo(f"{error_line(exc).rstrip()} (during {phase})", err=True)
                    typer.echo(
                        f"dbbench: everything measured is in {bench.journal.path}; "
                        f"`dbbench report {out_dir}` rebuilds the result from it",
                        err=True,
                    )
                    raise typer.Exit(ExitCode.USER_ERROR) from None
                except KeyboardInterrupt:
                    _write_reports_quietly(bench, sheet)
                    typer.echo(
                        "dbbench: interrupted; everything measured so far was kept", err=True
                    )
                    typer.echo(f"dbbench: partial result: {bench.result_path}", err=True)
                    raise typer.Exit(ExitCode.INTERRUPTED) from None
        finally:
            db.close()
            release_run_dir(out_dir)
    _outcome(bench, sheet, progress)


def _loaded_duckdb(command: str, out: Path | None, out_dir: Path) -> tuple[str, ...]:
    """``power``/``throughput`` with the default engine run on the DuckDB file that
    ``load -o DIR`` left in DIR: that file is kept when DIR is replaced (``--force``)."""
    if out is None or not (out_dir / DUCKDB_FILE).is_file():
        raise DbbenchError(
            f"{command} with the default engine runs on the database `dbbench load -o DIR` "
            f"left in DIR ({out_dir / DUCKDB_FILE} does not exist): give that DIR with "
            "-o DIR --force, or the database with -e duckdb:///FILE"
        )
    return (DUCKDB_FILE, DUCKDB_FILE + ".wal")


#: Bytes a loaded database takes per unit of SF, for engines that keep it in a local file
#: (DuckDB at SF1: about 0.26 GB; SQLite: about 1.1 GB); a lower bound, not a promise.
BYTES_PER_SF = {"duckdb": 0.25e9, "sqlite": 1.0e9}


def _check_space(url: str, sf: float) -> None:
    """Refuse, before anything is generated, a load whose database cannot fit its disk."""
    parsed = parse_url(url)
    per_sf = BYTES_PER_SF.get(parsed.scheme)
    if per_sf is None or not parsed.database or parsed.database == ":memory:":
        return
    path = Path(parsed.database).resolve()
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    there = path.stat().st_size if path.is_file() else 0  # a reload replaces it
    free = shutil.disk_usage(folder).free + there
    need = per_sf * sf
    if need > free:
        raise DbbenchError(
            f"SF {sf:g} needs about {need / 1e9:,.1f} GB for the database {path}, but only "
            f"{free / 1e9:,.1f} GB are free there (--no-space-check to try anyway)"
        )


def _give_up(out_dir: Path, created: bool) -> None:
    """Before anything ran: unlock the run directory, and remove it if dbbench made it."""
    if created:
        remove_if_empty(out_dir)
    release_run_dir(out_dir)


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
    no_space_check: NoSpaceCheck = False,
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

    execute("run", engine, options, out, force, steps, cost_sheet, not no_space_check)


def load(
    engine: Engine = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    out: Out = None,
    force: Force = False,
    jobs: Jobs = None,
    no_space_check: NoSpaceCheck = False,
) -> None:
    """The load test alone (always loads, replacing the eight tables)."""
    options = _options(scale_factor, None, None, None, jobs=jobs)
    steps = lambda b: b.load(reload=True)  # noqa: E731
    execute("load", engine, options, out, force, steps, None, not no_space_check)


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
