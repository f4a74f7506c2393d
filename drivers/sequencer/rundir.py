"""The run directory: where one benchmark's journal, result and reports go.

A run directory is never overwritten by accident. An existing, non-empty one is refused
unless ``force`` is given, and even then only if dbbench made it: :func:`prepare_run_dir`
writes a marker file (:data:`MARKER_FILE`) into every run directory it prepares, and
``--force`` replaces only a directory holding that marker, removing only the files dbbench
writes there (a user's own files stay). A ``result.json`` alone proves nothing: a user's
project folder may hold one. The current directory, any directory above it, and a symbolic
link are never replaced.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

from dbbench.drivers.errors import DriversError

#: Written by dbbench into each run directory it prepares; ``--force`` requires it.
MARKER_FILE = ".dbbench-run"
MARKER_TEXT = "dbbench run directory: --force may replace the files dbbench wrote here\n"

#: Every file dbbench writes into a run directory (the marker included), the only ones
#: ``--force`` removes. ``tpch.duckdb`` is the default engine's database file.
OWN_FILES = (
    "journal.jsonl",
    "result.json",
    "report.md",
    "report.html",
    "summary.txt",
    "tpch.duckdb",
    "tpch.duckdb.wal",
    MARKER_FILE,
)
#: Temporary files of the atomic result write (``.result.json.XXXX``) and DuckDB's spill
#: directory.
OWN_PREFIXES = (".result.json.",)
OWN_DIRS = ("tpch.duckdb.tmp",)


def is_run_dir(path: Path) -> bool:
    """True when dbbench prepared ``path`` as a run directory (its marker is there)."""
    marker = path / MARKER_FILE
    return marker.is_file() and not marker.is_symlink()


def _refuse_dangerous(path: Path) -> None:
    """The current directory or one above it, and symbolic links, are never replaced."""
    if path.is_symlink():
        raise DriversError(
            f"run directory {path} is a symbolic link; give the directory it points to"
        )
    here = Path.cwd().resolve()
    target = path.resolve()
    if here == target or target in here.parents:
        raise DriversError(
            f"refusing to replace {path}: it is the current directory or one above it"
        )


def prepare_run_dir(path: Path, *, force: bool, keep: tuple[str, ...] = ()) -> bool:
    """Leave ``path`` a run directory with none of dbbench's files in it (other than those
    named in ``keep``, e.g. a database a previous ``load`` left there) and the marker
    written; True when dbbench created the directory (a failed start may remove it again).
    """
    if path.is_symlink():
        _refuse_dangerous(path)
    if path.exists() and not path.is_dir():
        raise DriversError(f"{path} exists and is not a directory")
    if path.is_dir() and any(n.name not in keep for n in path.iterdir()):
        if not force:
            raise DriversError(f"run directory {path} already exists; use --force to replace it")
        _refuse_dangerous(path)
        if not is_run_dir(path):
            raise DriversError(
                f"{path} is not empty and was not made by dbbench (no {MARKER_FILE}); "
                "refusing to replace it even with --force"
            )
        remove_own_files(path, keep=keep)
    created = not path.exists()
    path.mkdir(parents=True, exist_ok=True)
    (path / MARKER_FILE).write_text(MARKER_TEXT, encoding="utf-8")
    return created


def remove_own_files(path: Path, *, keep: tuple[str, ...] = ()) -> None:
    """Remove what dbbench wrote into the run directory ``path``, nothing else."""
    for entry in path.iterdir():
        name = entry.name
        if name in keep or name == MARKER_FILE:
            continue
        if entry.is_symlink() or not (entry.is_file() or entry.is_dir()):
            continue  # never follow a link; sockets, fifos: not ours
        if entry.is_file() and (name in OWN_FILES or name.startswith(OWN_PREFIXES)):
            entry.unlink()
        elif entry.is_dir() and name in OWN_DIRS:
            shutil.rmtree(entry)
    with contextlib.suppress(FileNotFoundError):
        (path / MARKER_FILE).unlink()


def unfinished_run(path: Path) -> str | None:
    """What ``--force`` would drop when ``path`` holds the journal of a run that never
    finished (no ``benchmark_end``), as a phrase; None when there is no such journal."""
    journal = path / "journal.jsonl"
    if not is_run_dir(path) or not journal.is_file():
        return None
    ended = 0
    finished = False
    with contextlib.suppress(OSError, UnicodeDecodeError), journal.open(encoding="utf-8") as f:
        for line in f:
            with contextlib.suppress(ValueError):
                event = json.loads(line).get("event")
                finished = finished or event == "benchmark_end"
                ended += event in ("query_end", "rf1_end", "rf2_end", "load_end")
    if finished:
        return None
    return f"the journal of an unfinished run ({ended} measured interval(s))"


def remove_if_empty(path: Path) -> None:
    """Remove a run directory a failed start left holding only its marker."""
    with contextlib.suppress(OSError):
        if [p.name for p in path.iterdir()] == [MARKER_FILE]:
            (path / MARKER_FILE).unlink()
        path.rmdir()
    # not empty (or already gone): leave it alone
