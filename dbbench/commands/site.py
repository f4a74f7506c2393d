"""``dbbench site`` (a static results site of every result given) and ``dbbench verify``
(do a result's stated figures follow from its measurements; does its hash match)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dbbench.errors import ExitCode
from dbbench.reports import escape


def _expanded(paths: list[Path]) -> list[Path]:
    """The results to check: a run directory (or file) as given; a suite folder
    (``suite.json``): its entries' run directories; a folder of results: each sub-folder
    holding a result or a journal."""
    from dbbench.reports.disclose.archive import is_package
    from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE
    from dbbench.reports.studies.suite import INDEX_FILE, SuiteIndex

    out: list[Path] = []
    for path in paths:
        if (
            not path.is_dir()
            or (path / RESULT_FILE).exists()
            or (path / JOURNAL_FILE).exists()
            or is_package(path)  # a disclosure package: checked against its own manifest
        ):
            out.append(path)
        elif (path / INDEX_FILE).is_file():
            out += [path / e.run_dir for e in SuiteIndex.read(path).entries]
        else:
            found = sorted(
                d
                for d in path.iterdir()
                if d.is_dir() and ((d / RESULT_FILE).exists() or (d / JOURNAL_FILE).exists())
            )
            out += found or [path]
    return out


def verify_command(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files, run directories, suite folders, folders of run directories "
            "or disclosure packages to check."
        ),
    ],
    manifest: Annotated[
        Path | None,
        typer.Option("--manifest", "-m", help="A site's manifest.json stating hashes and figures."),
    ] = None,
    expected: Annotated[
        str | None, typer.Option("--sha256", help="The content hash the (one) result must have.")
    ] = None,
    answers: Annotated[
        bool,
        typer.Option(
            "--answers",
            help="Also check every kept query output by value on a reference engine brought to "
            "the state each query saw (docs/answers.md).",
        ),
    ] = False,
    against: Annotated[
        str | None,
        typer.Option("--against", help="The reference engine's URL (default: DuckDB, embedded)."),
    ] = None,
) -> None:
    """Recompute every result's figures from its recorded measurements and check its content
    hash; one line per problem, exit 1 when any result fails."""
    from dbbench.reports.errors import ReportsError

    if answers:
        from dbbench.commands.verify_answers import verify_answers

        if not verify_answers(results, against):
            raise typer.Exit(ExitCode.USER_ERROR)
        return
    if against is not None:
        raise ReportsError("--against names the reference engine of --answers: add --answers")
    from dbbench.reports.verify import read_manifest, verify

    if expected is not None and (len(results) != 1 or len(_expanded(results)) != 1):
        raise ReportsError("--sha256 names the hash of one result: give exactly one")
    entries = read_manifest(manifest) if manifest is not None else None
    results = _expanded(results)
    failed = 0
    from dbbench.reports.disclose.archive import is_package, verify_package

    for path in results:
        if is_package(path):  # a disclosure package (dbbench disclose): its manifest
            problems = verify_package(path)
            for line in problems:
                typer.echo(escape.terminal(line), err=True)
            if not problems:
                typer.echo(escape.terminal(f"{path}: ok, every file as its manifest states"))
            failed += bool(problems)
            continue
        verdict = verify(path, entries, expected)
        if verdict.ok:
            prov = verdict.provenance
            kit = prov.kit_version if prov and prov.kit_version else "unknown"
            digest = prov.hash if prov else ""
            typer.echo(escape.terminal(f"{path}: ok sha256:{digest} kit {kit}"))
        else:
            failed += 1
            for line in verdict.lines():
                typer.echo(escape.terminal(line), err=True)
    if failed:
        raise typer.Exit(ExitCode.USER_ERROR)


def site_command(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files, run, suite or study directories, HammerDB results, published "
            "records (directories are searched recursively)."
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="The site's directory.")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace the directory of a site dbbench made.")
    ] = False,
    full_reports: Annotated[
        bool,
        typer.Option("--full-reports/--no-full-reports", help="A full HTML report per result."),
    ] = True,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes reading, verifying and writing the results (default: 2 on a "
            "machine of 2 or more cores, 1 for fewer than 40 results).",
        ),
    ] = None,
) -> None:
    """Build a static, self-contained results site (works from file://, fetches nothing)."""
    import time

    from dbbench.reports.site.build import build_site

    started = time.perf_counter()

    def warn(line: str) -> None:
        typer.echo(escape.terminal(f"dbbench: not included: {line}"), err=True)

    outcome = build_site(
        results, output, force=force, full_reports=full_reports, warn=warn, workers=workers
    )
    typer.echo(
        escape.terminal(
            f"wrote {output}/index.html: {outcome.included} result(s), "
            f"{len(outcome.failed)} refused by verify, {len(outcome.refused)} not results "
            f"({time.perf_counter() - started:.1f} s, {outcome.processes} process(es))"
        ),
        err=True,
    )


def register(app: typer.Typer) -> None:
    """Add ``site`` and ``verify`` to the app."""
    app.command("site")(site_command)
    app.command("verify")(verify_command)
