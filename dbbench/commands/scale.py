"""``dbbench scale``: the throughput test at a series of stream counts (a scaling study).

The database is loaded once (or an already loaded one reused) into ``DIR/load``; then each
stream count N runs one throughput test (N query streams and the refresh stream) into
``DIR/streams-N``, all with the same seed. ``DIR/scaling.{md,html,json}`` hold the seeds'
table: concurrency, throughput, relative throughput, scaling efficiency, query sets per day.
A failed step is marked and the next one still runs; finished steps are kept on a re-run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ScaleFactor
from dbbench.commands.study_runner import engine_url, run_benchmark
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.drivers.url import redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.loading import load_result
from dbbench.reports.scaling import ScaleIndex, StepRecord, write_scale_reports

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
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise DbbenchError(
            f"--streams must be a comma-separated list of integers: {text!r}"
        ) from None
    if not values or any(v < 1 for v in values):
        raise DbbenchError(f"--streams needs stream counts of at least 1: {text!r}")
    return sorted(set(values))


def _kept(run_dir: Path, options: RunOptions) -> bool:
    if not (run_dir / "result.json").is_file():
        return False
    try:
        result = load_result(run_dir)
    except Exception:
        return False
    return (
        result.status == "complete"
        and not result.errors
        and result.scale_factor == options.sf
        and result.streams == options.streams
        and result.config.get("seed") == options.seed
    )


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
) -> None:
    """Throughput at 1, 2, 4, ... streams: relative throughput and query sets per day."""
    sf = scale_factor
    series = stream_series(streams, max_streams)
    out.mkdir(parents=True, exist_ok=True)
    url = engine_url(engine, out)  # one database for every step
    telemetry = telemetry_interval or None
    index = ScaleIndex(redact(url), sf, [StepRecord(n, f"streams-{n}") for n in series])
    index.write(out)

    load_options = RunOptions(sf=sf, streams=1, runs=1, seed=seed, telemetry_interval=telemetry)
    loaded = run_benchmark(
        url, load_options, out / index.load_dir, lambda b: b.load(), command="scale"
    )
    typer.echo(f"scale: load: {loaded.status} {loaded.message}".rstrip(), err=True)
    if loaded.status != "ok":
        for step in index.steps:
            step.status, step.message = "failed", f"the load failed: {loaded.message}"
        index.write(out)
        write_scale_reports(out)
        raise DbbenchError(f"the load of the scaling study failed: {loaded.message}")

    def steps(bench: Benchmark) -> None:
        bench.require_loaded()
        bench.performance_run(1, power=False)

    for step in index.steps:
        options = RunOptions(
            sf=sf, streams=step.streams, runs=1, seed=seed, query_timeout=query_timeout,
            telemetry_interval=telemetry,
        )  # fmt: skip
        run_dir = out / step.run_dir
        if not rerun and _kept(run_dir, options):
            step.status = "ok"
            typer.echo(f"scale: {step.streams} streams: finished before, kept", err=True)
            continue
        typer.echo(f"scale: {step.streams} streams: running", err=True)
        outcome = run_benchmark(url, options, run_dir, steps, command="scale")
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
