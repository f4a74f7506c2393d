"""``dbbench suite FILE -o DIR``: every engine of a suite file under one setting, compared.

Each entry (engine x scale factor x repetition) is a whole benchmark in its own run
directory under DIR, run with the same kit and the same seeds. A failed entry is marked and
the others still run; re-running the suite resumes: entries that finished with the same
settings are not run again unless ``--rerun``. At the end DIR holds ``suite.json`` (the
index) and ``comparison.md``/``.html``/``.json``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import Cold, Repetitions
from dbbench.commands.run_progress import tpch_workload
from dbbench.commands.study_hooks import INTERRUPTED, study_hooks
from dbbench.drivers.lifecycle import check_space_ahead, local_url
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.drivers.sequencer.config import check_options
from dbbench.drivers.sequencer.study import finished_before, run_step
from dbbench.drivers.signals import interrupt_on_signals
from dbbench.drivers.suite_file import Suite, load_suite
from dbbench.drivers.url import redact
from dbbench.errors import ExitCode
from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, write_suite_reports
from dbbench.reports.tpch.costsheet import load_cost_sheet
from dbbench.reports.tpch.model import default_streams


def _options(suite: Suite, sf: float, cold: bool = False, repetitions: int = 0) -> RunOptions:
    return RunOptions(
        cold=cold,
        repetitions=repetitions,
        sf=sf,
        streams=suite.streams or default_streams(sf),
        runs=suite.runs,
        seed=suite.seed,
        query_timeout=suite.query_timeout,
        telemetry_interval=suite.telemetry_interval,
    )


def _entries(suite: Suite, repeat: int) -> list[tuple[EntryRecord, str, Path | None]]:
    """Every benchmark in the order it runs: repetitions interleaved across the engines
    (A B C, then B C A, ...: the order rotated), so drift of the host hits every engine."""
    out = []
    n = len(suite.engines)
    for sf in suite.scale_factors:
        for rep in range(1, repeat + 1):
            shift = (rep - 1) % n
            for engine in [*suite.engines[shift:], *suite.engines[:shift]]:
                run_dir = f"{engine.name}-sf{sf:g}" + (f"-r{rep}" if repeat > 1 else "")
                record = EntryRecord(engine.name, redact(engine.url), sf, rep, run_dir)
                if engine.cost_sheet is not None:
                    record.cost_sheet = str(engine.cost_sheet.resolve())
                out.append((record, engine.url, engine.cost_sheet))
    return out


def suite(
    file: Annotated[Path, typer.Argument(help="The suite file (TOML).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory of the whole suite.")],
    rerun: Annotated[bool, typer.Option("--rerun", help="Run finished entries again too.")] = False,
    cold: Cold = False,
    repetitions: Repetitions = 0,
    repeat: Annotated[
        int | None,
        typer.Option(
            "--repeat",
            min=1,
            help="Whole benchmarks per engine, interleaved across the engines (default: the "
            "suite file's repetitions); the comparison gives 95 % intervals from them.",
        ),
    ] = None,
) -> None:
    """Run every engine of a suite file and write one comparison."""
    spec = load_suite(file)
    reps = repeat or spec.repetitions
    sheets = {e.name: load_cost_sheet(e.cost_sheet) for e in spec.engines if e.cost_sheet}
    entries = _entries(spec, reps)
    for record, url, _ in entries:  # every entry checked before anything is written
        check_options(_options(spec, record.scale_factor, cold, repetitions))
        check_space_ahead(local_url(url, out / record.run_dir), record.scale_factor)
    out.mkdir(parents=True, exist_ok=True)
    index = SuiteIndex(str(file), spec.baseline)
    index.entries = [record for record, _, _ in entries]
    index.write(out)
    with interrupt_on_signals():  # kill stops the suite as Ctrl-C does: the entry says so
        try:
            for record, url, _ in entries:
                options = _options(spec, record.scale_factor, cold, repetitions)
                run_dir = out / record.run_dir
                label = f"{record.name} SF {record.scale_factor:g}" + (
                    f" #{record.repetition}" if reps > 1 else ""
                )
                hooks = study_hooks(sheets.get(record.name))
                if not rerun and finished_before(run_dir, options, hooks):
                    record.status = "ok"
                    typer.echo(
                        f"suite: {label}: finished before, kept (--rerun runs it again)", err=True
                    )
                    continue
                typer.echo(f"suite: {label}: running", err=True)
                record.started = time.time()

                def steps(bench: Benchmark, runs: int = options.runs) -> None:
                    bench.load()
                    for number in range(1, runs + 1):
                        bench.performance_run(number)

                workload = tpch_workload(options, steps, "suite")
                outcome = run_step(
                    local_url(url, run_dir), workload, run_dir, hooks, space_check=True
                )
                record.finished = time.time()
                record.status, record.message = outcome.status, outcome.message
                index.write(out)
                typer.echo(f"suite: {label}: {outcome.status} {outcome.message}".rstrip(), err=True)
        except KeyboardInterrupt:
            for record in index.entries:
                if record.status == "pending" and record.started is not None:
                    record.status, record.message = "failed", "interrupted"
            index.write(out)
            typer.echo(INTERRUPTED, err=True)
            raise typer.Exit(ExitCode.INTERRUPTED) from None
    index.write(out)
    for path in write_suite_reports(out):
        typer.echo(f"comparison: {path}")
    bad = [r for r in index.entries if r.status != "ok"]
    if bad:
        names = ", ".join(f"{r.run_dir} ({r.status})" for r in bad)
        typer.echo(
            f"dbbench: {len(bad)} of {len(index.entries)} entries did not finish cleanly: {names}",
            err=True,
        )
        raise typer.Exit(ExitCode.INVALID_RUN)


def register(app: typer.Typer) -> None:
    """Add ``suite`` to the app."""
    app.command("suite")(suite)
