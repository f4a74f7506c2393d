"""``dbbench gen``: TPC-H tables and update sets as files, with dbgen's options.

A thin command: it parses and checks what only the command line can get wrong (a scale
factor that is not a number, ``--part`` without ``--parts``), picks the progress display
(a rich bar on a terminal, nothing elsewhere) and hands everything else to
:func:`dbgen.writer.generate` (after :func:`drivers.space.check_files_space`), whose errors
the CLI boundary turns into one line.
"""

from __future__ import annotations

import signal
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from dbbench.commands.gen_progress import GenProgressBar
from dbbench.commands.options import ScaleFactor
from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.progress import NullSink, ProgressSink
from dbbench.dbgen.scale import MAX_UPDATE_SET
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.writer import SEGMENT_BYTES, GenOptions, generate
from dbbench.drivers.space import check_files_space


class FileFormat(StrEnum):
    tbl = "tbl"
    csv = "csv"
    parquet = "parquet"


_HERE = Path(".")
_TBL = FileFormat.tbl


def _interrupt_on_sigterm() -> None:
    """Treat SIGTERM like Ctrl-C so that temporaries are removed on ``kill`` too."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _options(
    sf: float,
    tables: str | None,
    out: Path,
    fmt: FileFormat,
    parts: int | None,
    part: int | None,
    updates: int,
    force: bool,
    trailing_separator: bool,
    jobs: int,
    segment_bytes: int,
) -> GenOptions:
    if part is not None and parts is None:
        raise DbgenError("--part needs --parts (the number of parts)")
    if updates and (tables is not None or parts is not None):
        raise DbgenError("-U/--updates writes only update sets; it cannot take -T or --parts")
    if jobs < 0:
        raise DbgenError(f"--jobs must be 0 (all cores) or more, got {jobs}")
    if tables is not None and not tables.strip(" ,"):
        raise DbgenError("-T/--tables names no table (use r n s c P S O L, p o l, or names)")
    if updates < 0 or updates > MAX_UPDATE_SET:
        raise DbgenError(
            f"-U/--updates must be 0..{MAX_UPDATE_SET} (the update sets a benchmark can "
            f"use), got {updates}"
        )
    chosen = tuple(api.parse_tables(tables)) if tables else tuple(TABLES)
    return GenOptions(  # the fields in their order
        sf, out, chosen, fmt.value, 1 if parts is None else parts, part, updates, force,
        trailing_separator, jobs, segment_bytes,
    )  # fmt: skip


def register(app: typer.Typer) -> None:
    """Add ``gen`` to the app."""

    @app.command("gen")
    def gen(
        scale: ScaleFactor = 1.0,
        tables: str | None = typer.Option(
            None,
            "-T",
            "--tables",
            help="Tables: dbgen letters (r n s c P S O L) or names, comma separated.",
        ),
        out: Annotated[Path, typer.Option("-o", "--out", help="Output directory.")] = _HERE,
        fmt: Annotated[FileFormat, typer.Option("--format", help="File format.")] = _TBL,
        parts: int | None = typer.Option(
            None, "--parts", "-C", help="Split each table into N chunks (files)."
        ),
        part: int | None = typer.Option(
            None, "--part", "-S", help="Write only chunk K of --parts (default: all)."
        ),
        updates: int = typer.Option(
            0, "-U", "--updates", help="Write update sets 1..N (only them), as dbgen -U N."
        ),
        force: bool = typer.Option(False, "-f", "--force", help="Overwrite existing files."),
        trailing_separator: bool = typer.Option(
            True,
            "--trailing-separator/--no-trailing-separator",
            help="End every .tbl row with '|' as dbgen does.",
        ),
        jobs: int = typer.Option(0, "-j", "--jobs", help="Processes (0: all cores)."),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress, no summary."),
        segment_bytes: int = typer.Option(
            SEGMENT_BYTES, "--segment-bytes", hidden=True, help="Work-unit size (tests)."
        ),
        engine: str | None = typer.Option(
            None,
            "-e",
            "--engine",
            help="Generate as tasks of this cluster (spark://...): part K of --parts per "
            "task, into an --out every worker can reach.",
        ),
    ) -> None:
        """Generate TPC-H data: .tbl byte-identical to dbgen, or CSV, or typed Parquet."""
        args = (scale, tables, out, fmt, parts, part, updates, force, trailing_separator)
        options = _options(*args, jobs, segment_bytes)
        if engine is not None:
            _run_on_engine(engine, options, quiet)
        else:
            check_files_space(options)
            _run(options, quiet)


def _run_on_engine(url: str, options: GenOptions, quiet: bool) -> None:
    """Every part as a task of the engine's cluster; only summaries come back."""
    from dbbench.drivers.engine import GeneratesData  # plain generation never loads drivers
    from dbbench.drivers.registry import open_engine

    cluster = open_engine(url)
    try:
        if not isinstance(cluster, GeneratesData):
            raise DbgenError(f"engine {cluster.name!r} cannot run the generator as its tasks")
        summary = cluster.generate_files(replace(options, out_dir=options.out_dir.resolve()))
    finally:
        cluster.close()
    if not quiet:
        typer.echo(f"dbbench gen: {summary.line()} -> {options.out_dir} ({cluster.name} tasks)")


def _run(options: GenOptions, quiet: bool) -> None:
    """Generate with a progress bar only on a terminal; Ctrl-C exits 130 after clean-up."""
    progress: ProgressSink = NullSink()
    if not quiet and sys.stderr.isatty():
        progress = GenProgressBar()
    _interrupt_on_sigterm()
    try:
        summary = generate(options, progress)
    except KeyboardInterrupt:
        sys.stderr.write("dbbench: gen interrupted; unfinished files were removed\n")
        raise typer.Exit(130) from None
    if not quiet:
        typer.echo(f"dbbench gen: {summary.line()} -> {options.out_dir}")
