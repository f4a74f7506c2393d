"""``dbbench gate``: fail a CI job when a candidate result regressed against a baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.options import ForceCompare, OutputFile
from dbbench.errors import ExitCode
from dbbench.reports.errors import ReportsError
from dbbench.reports.loading import load_result
from dbbench.reports.safeio import STDOUT, OutputError, same_file, write_text
from dbbench.reports.studies.gate import DEFAULT_MIN_DELTA, gate, pooled
from dbbench.reports.studies.render_gate import GATE_FORMATS, render_gate, verdict_line
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.plans import PlanTexts, read_texts
from dbbench.reports.tpch.render_compare import label_for


def gate_command(
    baseline: Annotated[Path, typer.Argument(help="The baseline result or run directory.")],
    candidate: Annotated[Path, typer.Argument(help="The candidate result or run directory.")],
    fail_over: Annotated[
        float,
        typer.Option("--fail-over", help="Fail when a query slowed by more than PCT percent."),
    ] = 10.0,
    min_delta: Annotated[
        float,
        typer.Option("--min-delta", help="Ignore slow-downs smaller than SECONDS."),
    ] = DEFAULT_MIN_DELTA,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Judge RF1 and RF2 too (state-dependent).")
    ] = False,
    more_baselines: Annotated[
        list[Path] | None,
        typer.Option("--baseline", "-b", help="Another result of the baseline (repeat)."),
    ] = None,
    more_candidates: Annotated[
        list[Path] | None,
        typer.Option("--candidate", "-c", help="Another result of the candidate (repeat)."),
    ] = None,
    force: ForceCompare = False,
    format: Annotated[str, typer.Option("--format", "-f", help="text, md or json.")] = "text",
    output: OutputFile = None,
) -> None:
    """Compare per query (noise-aware); exit 4 when the candidate regressed. Further results
    of either side (-b, -c) are pooled: more samples, a better view of the noise; with two
    or more on each side the 95 % interval over them decides."""
    if format not in GATE_FORMATS:
        raise typer.BadParameter(f"{format!r} is not one of {', '.join(GATE_FORMATS)}")
    if min_delta < 0:
        raise ReportsError(f"--min-delta must be >= 0, not {min_delta}")
    inputs = [baseline, candidate, *(more_baselines or []), *(more_candidates or [])]
    if output is not None and any(same_file(output, p) for p in inputs):
        raise ReportsError(f"refusing to overwrite {output}: it is an input of this command")
    base_reps = [load_result(p) for p in [baseline, *(more_baselines or [])]]
    cand_reps = [load_result(p) for p in [candidate, *(more_candidates or [])]]
    base, cand = pooled(base_reps), pooled(cand_reps)
    texts = (_texts(base, baseline), _texts(cand, candidate))
    result = gate(
        base,
        cand,
        fail_over,
        min_delta=min_delta,
        force=force,
        refresh=refresh,
        texts=texts,
        repetitions=(base_reps, cand_reps),
    )
    text = render_gate(result, label_for(baseline), label_for(candidate), format)
    if output is None or str(output) == STDOUT:
        typer.echo(text, nl=False)
    else:
        try:
            write_text(output, text)
        except OutputError as exc:
            raise ReportsError(str(exc)) from None
        typer.echo(verdict_line(result), err=True)
    if not result.passed:
        raise typer.Exit(ExitCode.REGRESSION)


def _texts(result: BenchmarkResult, path: Path) -> PlanTexts:
    """The plan texts beside a result (its run directory); a missing file: a warning."""
    texts = read_texts(result, path if path.is_dir() else path.parent)
    if texts.note is not None:
        typer.echo(f"dbbench: {path}: {texts.note}", err=True)
    return texts


def register(app: typer.Typer) -> None:
    """Add ``gate`` to the app."""
    app.command("gate")(gate_command)
