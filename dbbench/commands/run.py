"""``dbbench run``, ``load``, ``power``, ``throughput``: the spec's test sequence.

Thin commands over :class:`drivers.sequencer.Benchmark` inside the run lifecycle
(:func:`drivers.lifecycle.open_run`: run directory, engine and its benchmark lock, signals):
they parse options, show progress and turn the outcome into an exit code
(0 a valid run, 3 an invalid one, 130 interrupted, 1 a user error). ``run`` is the whole
benchmark; the other three are its parts for users who script their own sequence, and each
writes its own result file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import OptionGroup, ScaleFactor, grouped, option
from dbbench.commands.run_progress import benchmark_shown, phase_breakdown, tpch_workload
from dbbench.drivers.errors import ConnectionLostError
from dbbench.drivers.lifecycle import BARE_DUCKDB, RunScope, local_url, open_run
from dbbench.drivers.loader import check_loaded_state
from dbbench.drivers.rundir import default_run_name
from dbbench.drivers.sequencer import Benchmark, RunOptions, RunProgress
from dbbench.drivers.sequencer.config import PLAN_MODES, check_options
from dbbench.drivers.sequencer.load import check_not_foreign
from dbbench.errors import DbbenchError, ExitCode, error_line
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.tpch.compliance import messages
from dbbench.reports.tpch.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.tpch.model import DUCKDB_FILE, BenchmarkResult, default_streams
from dbbench.reports.tpch.render import write_reports

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
AcidOpt = Annotated[
    Path | None,
    typer.Option(
        "--acid",
        help="An ACID result (dbbench acid) of the same engine and configuration: its "
        "verdict goes into the result, every report and the compliance section.",
    ),
]
TelemetryOpt = Annotated[
    float,
    typer.Option("--telemetry-interval", help="Seconds between resource samples; 0: off."),
]
PlansOpt = Annotated[
    str,
    typer.Option(
        "--plans",
        help="Each query's plan after the measured work: off, explain or analyze "
        "(an extra untimed pass that executes every query).",
    ),
]
AnswersOpt = Annotated[
    bool,
    typer.Option(
        "--answers/--no-answers",
        help="Keep every query's output beside the result (answers.jsonl.gz, digests in the "
        "result) for dbbench verify --answers; --no-answers: the result says none were kept.",
    ),
]
Reload = Annotated[bool, typer.Option("--reload", help="Load even if the database is loaded.")]
NoSpaceCheck = Annotated[
    bool,
    typer.Option("--no-space-check", help="Load even if the database seems not to fit its disk."),
]


@dataclass(frozen=True)
class Target:
    """Where a benchmark runs and writes: ``--engine``, ``-s``, ``--out``, ``--force``
    (:data:`TARGET`, the options of all four commands)."""

    engine: str
    scale_factor: float
    out: Path | None
    force: bool


TARGET = OptionGroup(
    (
        option(
            "engine", str, "duckdb", "--engine", "-e",
            help="Engine URL; 'duckdb': a file in --out.",
        ),
        inspect.Parameter(
            "scale_factor", inspect.Parameter.KEYWORD_ONLY, default=1.0, annotation=ScaleFactor
        ),
        option(
            "out", Path | None, None, "--out", "-o",
            help="Run directory (default: runs/ENGINE-sfSF-TIME).",
        ),
        option(
            "force", bool, False, "--force",
            help="Replace an existing run directory; load into a database that holds tables "
            "dbbench did not create.",
        ),
    ),
    Target,
)  # fmt: skip


def _out_dir(out: Path | None, engine: str, sf: float) -> Path:
    if out is not None:
        return out
    name = engine.split(":", 1)[0].split("+", 1)[0] or "engine"
    if not name.replace("-", "").replace("_", "").isalnum():  # e.g. -e some/path
        name = "engine"
    return default_run_name(name, f"sf{sf:g}")


def _write_reports(
    result: BenchmarkResult, out_dir: Path, cost_sheet: CostSheet | None
) -> list[Path]:
    return write_reports(result, out_dir, cost_sheet=cost_sheet)


def _attach_acid(bench: Benchmark, acid: tuple[Path, AcidResult] | None) -> None:
    """The ACID result into the finished run's result (rewritten, compliance judged again);
    one that is not of the same engine and configuration: one line, exit 1 after the
    reports (the result stays without it)."""
    if acid is None:
        return
    from dbbench.reports.errors import ReportsError
    from dbbench.reports.tpch.acid import attach
    from dbbench.reports.tpch.compliance import judge

    try:
        attach(bench.result, acid[1], str(acid[0]))
    except ReportsError as exc:
        raise DbbenchError(f"--acid: {exc}") from None
    finally:
        bench.result.compliance = judge(bench.result)
        bench.result.write(bench.result_path)


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
        more = len(result.errors) - 1  # one line: the first problem, how many more
        also = (
            f" (and {more} more problem{'s' if more > 1 else ''}: see the report)" if more else ""
        )
        typer.echo(f"dbbench: the run is invalid: {result.errors[0]}{also}", err=True)
        raise typer.Exit(ExitCode.INVALID_RUN)


def execute(
    command: str,
    target: Target,
    options: RunOptions,
    steps: Callable[[Benchmark], None],
    cost_sheet: Path | None = None,
    space_check: bool = False,
    acid: Path | None = None,
) -> None:
    """The shared path of the four commands: one run lifecycle around a :class:`Benchmark`."""
    sheet = load_cost_sheet(cost_sheet) if cost_sheet is not None else None  # fail fast
    acid_result = None
    if acid is not None:  # fail fast too
        from dbbench.reports.loading import read_acid

        acid_result = (acid, read_acid(acid))
    check_options(options)
    engine, out, force = target.engine, target.out, target.force
    options = dataclasses.replace(options, load_beside=force)
    out_dir = _out_dir(out, engine, options.sf)
    keep: tuple[str, ...] = ()
    if command in ("power", "throughput") and engine.strip() == BARE_DUCKDB:
        keep = _loaded_duckdb(command, out, out_dir)
    url = local_url(engine, out_dir)
    load_sf = options.sf if space_check else None
    loaded = command in ("power", "throughput")  # on a loaded database, refused before the
    # run directory is made: a missing file is not created, an unloaded one not run on

    def check(scope: RunScope) -> None:  # before the run directory is kept
        if loaded:
            check_loaded_state(scope.engine, options.sf)
        else:  # a load into someone's own tables is refused before anything is written
            check_not_foreign(scope.engine, options)

    with open_run(
        [url], out_dir=out_dir, force=force, keep=keep, load_sf=load_sf, must_exist=loaded,
        check=check,
    ) as scope:  # fmt: skip
        if scope.replaced is not None:
            typer.echo(f"dbbench: --force replaced {scope.replaced} in {out_dir}", err=True)
        for where in scope.defaulted_places():
            # the driver's defaults chose the server or database: say which, before writing
            typer.echo(f"dbbench: the URL names no host or database: {where}", err=True)
        workload = tpch_workload(options, steps, command)
        with benchmark_shown(scope, workload) as bench:
            try:
                workload.run(scope)
            except ConnectionLostError as exc:
                _stopped(bench, sheet, f"the connection to the engine was lost: {exc}")
            except OSError as exc:  # a full disk, most likely
                _write_reports_quietly(bench, sheet)
                phase = bench.stopped_in or bench.ctx.progress.snapshot().phase
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
                typer.echo("dbbench: interrupted; everything measured so far was kept", err=True)
                typer.echo(f"dbbench: partial result: {bench.result_path}", err=True)
                raise typer.Exit(ExitCode.INTERRUPTED) from None
    try:
        _attach_acid(bench, acid_result)
    except DbbenchError:
        _write_reports_quietly(bench, sheet)
        raise
    _outcome(bench, sheet, bench.ctx.progress)


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


def _stopped(bench: Benchmark, cost_sheet: CostSheet | None, why: str) -> None:
    _write_reports_quietly(bench, cost_sheet)
    typer.echo(f"dbbench: {why}", err=True)
    typer.echo(f"dbbench: partial result: {bench.result_path}", err=True)
    raise typer.Exit(ExitCode.INVALID_RUN)


def _write_reports_quietly(bench: Benchmark, cost_sheet: CostSheet | None) -> None:
    # a partial result may not be reportable; the result file is there either way
    with contextlib.suppress(Exception):
        _write_reports(bench.result, bench.out_dir, cost_sheet)


def _options(
    sf: float,
    streams: int | None,
    seed: int | None,
    timeout: float | None,
    runs: int = 2,
    jobs: int | None = None,
    telemetry: float = 1.0,
    plans: str = "explain",
    answers: bool = True,
) -> RunOptions:
    if plans not in PLAN_MODES:
        raise typer.BadParameter(f"{plans!r} is not one of {', '.join(PLAN_MODES)}")
    return RunOptions(
        sf=sf,
        streams=streams if streams is not None else default_streams(sf),
        runs=runs,
        seed=seed,
        query_timeout=timeout,
        jobs=jobs,
        telemetry_interval=telemetry if telemetry != 0 else None,
        plans=plans,
        answers=answers,
    )


def run(
    target: Target,
    streams: Streams = None,
    seed: Seed = None,
    query_timeout: Timeout = None,
    runs: Runs = 2,
    cost_sheet: CostSheetOpt = None,
    reload: Reload = False,
    jobs: Jobs = None,
    no_space_check: NoSpaceCheck = False,
    telemetry_interval: TelemetryOpt = 1.0,
    plans: PlansOpt = "explain",
    answers: AnswersOpt = True,
    acid: AcidOpt = None,
) -> None:
    """The whole benchmark: load test, then each run's power and throughput tests."""
    sf = target.scale_factor
    options = _options(
        sf, streams, seed, query_timeout, runs, jobs, telemetry=telemetry_interval, plans=plans,
        answers=answers,
    )  # fmt: skip

    def steps(bench: Benchmark) -> None:
        bench.load(reload=reload)
        for number in range(1, options.runs + 1):
            bench.performance_run(number)

    execute("run", target, options, steps, cost_sheet, not no_space_check, acid)


def load(target: Target, jobs: Jobs = None, no_space_check: NoSpaceCheck = False) -> None:
    """The load test alone (always loads, replacing the eight tables)."""
    options = _options(target.scale_factor, None, None, None, jobs=jobs)
    steps = lambda b: b.load(reload=True)  # noqa: E731
    execute("load", target, options, steps, None, not no_space_check)


def power(target: Target, seed: Seed = None, query_timeout: Timeout = None) -> None:
    """The power test alone on an already loaded database (RF1, stream 0, RF2)."""
    _one_test("power", target, None, seed, query_timeout)


def throughput(
    target: Target, streams: Streams = None, seed: Seed = None, query_timeout: Timeout = None
) -> None:
    """The throughput test alone on an already loaded database."""
    _one_test("throughput", target, streams, seed, query_timeout)


def _one_test(
    test: str, target: Target, streams: int | None, seed: int | None, timeout: float | None
) -> None:
    """``power`` or ``throughput`` alone: run 1's test on the loaded database."""
    options = _options(target.scale_factor, streams, seed, timeout, runs=1)

    def steps(bench: Benchmark) -> None:
        bench.require_loaded()
        bench.performance_run(1, power=test == "power", throughput=test == "throughput")

    execute(test, target, options, steps)


def register(app: typer.Typer) -> None:
    """Add ``run``, ``load``, ``power`` and ``throughput`` to the app."""
    for name, fn in (("run", run), ("load", load), ("power", power), ("throughput", throughput)):
        app.command(name)(grouped(fn, {"target": TARGET}, first=True))
