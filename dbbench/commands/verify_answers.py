"""``dbbench verify RUN --answers [--against URL]``: the kept outputs checked by value
(``drivers.sequencer.answers_check``); the verdict is recorded in the result."""

from __future__ import annotations

import tempfile
from pathlib import Path

import typer

from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.sequencer.answers_check import check_answers
from dbbench.drivers.url import parse_url, redact
from dbbench.errors import DbbenchError
from dbbench.reports import escape
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.tpch.answers import answers_line
from dbbench.reports.tpch.compliance import judge
from dbbench.reports.tpch.model import BenchmarkResult


def _say(line: str) -> None:
    typer.echo(escape.terminal(line), err=True)


def verify_answers(results: list[Path], against: str | None) -> bool:
    """Check each run's kept outputs; True when every checked one agrees."""
    ok = True
    for path in results:
        result_path = path / RESULT_FILE if path.is_dir() else path
        run_dir = result_path.parent
        try:
            result = BenchmarkResult.read(result_path)
        except Exception as exc:
            raise DbbenchError(f"{result_path}: not a TPC-H result ({exc})") from None
        with tempfile.TemporaryDirectory(prefix="dbbench-verify-") as scratch:
            url = against or f"duckdb:///{Path(scratch) / 'reference.duckdb'}"
            label = redact(parse_url(url)) if against else "DuckDB (embedded)"
            with open_run([url], role="the reference engine") as scope:
                check, lines = check_answers(result, run_dir, scope.engine, label, _say)
        for line in lines:
            typer.echo(escape.terminal(f"{run_dir}: {line}"), err=True)
        if result.answers is not None:
            result.answers.check = check
            result.compliance = judge(result)  # a disagreement makes the result invalid
            result.write(result_path)
        typer.echo(escape.terminal(f"{run_dir}: answers: {answers_line(result)}"))
        ok = ok and not check.disagree
    return ok
