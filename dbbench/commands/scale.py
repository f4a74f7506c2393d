"""``dbbench scale``: the throughput test at a series of stream counts (a scaling study).

The database is loaded once (or an already loaded one reused) into ``DIR/load``; then each
stream count N runs one throughput test (N query streams and the refresh stream) into
``DIR/streams-N``, all with the same seed. ``DIR/scaling.{md,html,json}`` hold the seeds'
table: concurrency, throughput, relative throughput, scaling efficiency, query sets per day.
A failed step is marked and the next one still runs; finished steps are kept on a re-run.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import Cold, Repetitions, ScaleFactor, count_series
from dbbench.commands.run_progress import tpch_workload
from dbbench.commands.study_hooks import INTERRUPTED, study_hooks
from dbbench.drivers.engine import Engine
from dbbench.drivers.lifecycle import check_space_ahead, local_url, open_run
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.drivers.sequencer.config import check_options
from dbbench.drivers.sequencer.study import finished_before, run_step
from dbbench.drivers.url import redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.studies.scaling import ScaleIndex, StepRecord, write_scale_reports

DEFAULT_MAX = 8


def stream_series(text: str | None, maximum: int) -> list[int]:
    """``"1,2,4"`` as given, or 1, 2, 4, ... up to ``maximum``."""
    if text is None:
        if maximum < 1:
            raise DbbenchError(f"--max-streams must be at least 1, not {maximum}")
        series, n = [], 1
        while n <= maximum:
            series.append(n)
            n *= 2
        return series
    return count_series(text, "--streams", "stream counts")


def scale(
    engine: Annotated[
        str, typer.Option("--engine", "-e", help="Engine URL; 'duckdb': a file in --out.")
    ] = "duckdb",
    scale_factor: ScaleFactor = 1.0,
    streams: Annotated[
        str | None, typer.Option("--streams", "-S", help="Stream counts, e.g. 1,2,4,8.")
    ] = None,
    max_streams: Annotated[
        int, typer.Option("--max-streams", help="Default series: 1, 2, 4, ... up to N.")
    ] = DEFAULT_MAX,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory of the study.")] = Path(
        "scaling"
    ),
    seed: Annotated[int, typer.Option("--seed", help="seed0 of every step.")] = 1,
    query_timeout: Annotated[
        float | None, typer.Option("--query-timeout", help="Cancel a query after SECONDS.")
    ] = None,
    telemetry_interval: Annotated[
        float, typer.Option("--telemetry-interval", help="Seconds between samples; 0: off.")
    ] = 1.0,
    rerun: Annotated[bool, typer.Option("--rerun", help="Run finished steps again.")] = False,
    cold: Cold = False,
    repetitions: Repetitions = 0,
) -> None:
    """Throughput at 1, 2, 4, ... streams: relative throughput and query sets per day."""
    sf = scale_factor
    series = stream_series(streams, max_streams)
    telemetry = telemetry_interval or None
    for n in series:  # every step checked before the load, before anything is written
        check_options(_step_options(sf, n, seed, query_timeout, telemetry, (cold, repetitions)))
    created = not out.exists()
    url = local_url(engine, out)  # one database for every step
    check_space_ahead(url, sf)
    out.mkdir(parents=True, exist_ok=True)
    try:  # the study holds the engine and its benchmark lock from the load to the last step
        with open_run([url], load_sf=sf) as study:
            _study(
                study.engine, url, sf, series, out, seed, query_timeout, telemetry_interval, rerun,
                (cold, repetitions),
            )  # fmt: skip
    except KeyboardInterrupt:
        typer.echo(INTERRUPTED, err=True)
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    except BaseException:
        if created:  # nothing ran (an unreachable engine): no empty study folder stays
            with contextlib.suppress(OSError):
                out.rmdir()
        raise


def _step_options(
    sf: float,
    streams: int,
    seed: int,
    query_timeout: float | None,
    telemetry: float | None,
    passes: tuple[bool, int],
) -> RunOptions:
    """The options of the step at ``streams`` streams."""
    return RunOptions(
        sf=sf, streams=streams, runs=1, seed=seed, query_timeout=query_timeout,
        telemetry_interval=telemetry, cold=passes[0], repetitions=passes[1],
    )  # fmt: skip


def _study(
    engine: Engine,
    url: str,
    sf: float,
    series: list[int],
    out: Path,
    seed: int,
    query_timeout: float | None,
    telemetry_interval: float,
    rerun: bool,
    passes: tuple[bool, int] = (False, 0),
) -> None:
    telemetry = telemetry_interval or None
    index = ScaleIndex(redact(url), sf, [StepRecord(n, f"streams-{n}") for n in series])
    index.write(out)

    hooks = study_hooks()
    load_options = RunOptions(sf=sf, streams=1, runs=1, seed=seed, telemetry_interval=telemetry)
    load = tpch_workload(load_options, lambda b: b.load(), "scale")
    loaded = run_step(url, load, out / index.load_dir, hooks, engine=engine)
    if loaded.status != "ok":
        for step in index.steps:
            step.status, step.message = "failed", f"the load failed: {loaded.message}"
        index.write(out)
        write_scale_reports(out)
        raise DbbenchError(f"the load of the scaling study failed: {loaded.message}")
    typer.echo("scale: load: ok", err=True)

    def steps(bench: Benchmark) -> None:
        bench.require_loaded()
        bench.performance_run(1, power=False)

    for step in index.steps:
        options = _step_options(sf, step.streams, seed, query_timeout, telemetry, passes)
        run_dir = out / step.run_dir
        if not rerun and finished_before(run_dir, options, hooks):
            step.status = "ok"
            typer.echo(f"scale: {step.streams} streams: finished before, kept", err=True)
            continue
        typer.echo(f"scale: {step.streams} streams: running", err=True)
        try:
            workload = tpch_workload(options, steps, "scale")
            outcome = run_step(url, workload, run_dir, hooks, engine=engine)
        except KeyboardInterrupt:
            step.status, step.message = "failed", "interrupted"
            index.write(out)
            raise
        step.status, step.message = outcome.status, outcome.message
        index.write(out)
        typer.echo(
            f"scale: {step.streams} streams: {outcome.status} {outcome.message}".rstrip(), err=True
        )
    index.write(out)
    for path in write_scale_reports(out):
        typer.echo(f"scaling: {path}")
    if any(s.status != "ok" for s in index.steps):
        raise typer.Exit(ExitCode.INVALID_RUN)


def register(app: typer.Typer) -> None:
    """Add ``scale`` to the app."""
    app.command("scale")(scale)
