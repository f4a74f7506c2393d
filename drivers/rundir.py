"""The run directory: where one workload's journal, result and reports go.

A run directory is never overwritten by accident. An existing, non-empty one is refused
unless ``force`` is given, and even then only if dbbench made it: :func:`prepare_run_dir`
writes a marker file (:data:`MARKER_FILE`) into every run directory it prepares, and
``--force`` replaces only a directory holding that marker, removing only the files dbbench
writes there (a user's own files stay). A ``result.json`` alone proves nothing: a user's
project folder may hold one. The current directory, any directory above it, and a symbolic
link are never replaced; a link in it named like one of dbbench's files is removed (the
link, not its target), never written through.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from pathlib import Path

from dbbench.drivers.errors import DriversError
from dbbench.reports.model import (
    JOURNAL_FILE,
    REPORT_HTML_FILE,
    REPORT_MD_FILE,
    RESULT_FILE,
    SUMMARY_FILE,
)
from dbbench.reports.tpch.model import DUCKDB_FILE, PLANS_FILE

#: Written by dbbench into each run directory it prepares; ``--force`` requires it.
MARKER_FILE = ".dbbench-run"
MARKER_TEXT = "dbbench run directory: --force may replace the files dbbench wrote here\n"

#: Every file dbbench writes into a run directory (the marker included), the only ones
#: ``--force`` removes. ``tpch.duckdb`` is the default engine's database file.
OWN_FILES = (
    JOURNAL_FILE,
    RESULT_FILE,
    PLANS_FILE,
    REPORT_MD_FILE,
    REPORT_HTML_FILE,
    SUMMARY_FILE,
    DUCKDB_FILE,
    DUCKDB_FILE + ".wal",
    MARKER_FILE,
)
#: Temporary files of the atomic result write (``.result.json.XXXX``) and DuckDB's spill
#: directory.
OWN_PREFIXES = (f".{RESULT_FILE}.",)
OWN_DIRS = (DUCKDB_FILE + ".tmp",)


#: Where a run goes when no ``--out`` is given.
RUNS_FOLDER = Path("runs")


def run_stamp(now: float | None = None) -> str:
    """The one timestamp of a default run name: local time to the millisecond and the
    process id (``20261201-222604.123-4711``): two runs started in the same second, or by
    two processes at once, never collide."""
    now = time.time() if now is None else now
    millis = int(now * 1000) % 1000
    return f"{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}.{millis:03d}-{os.getpid()}"


def default_run_name(*parts: str, suffix: str = "") -> Path:
    """The default place of a run: ``runs/PART-PART-STAMP`` (``suffix``: e.g. ``.json``
    for a result file); every command that names a run uses this one namer."""
    return RUNS_FOLDER / ("-".join((*parts, run_stamp())) + suffix)


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


#: Run directories this process holds (an exclusive lock on the marker), until release.
_HELD: dict[Path, int] = {}


def _lock(path: Path) -> None:
    """Lock the marker of ``path`` for this process; refuse when another process has it."""
    if _key(path) in _HELD:
        return
    marker = path / MARKER_FILE
    fd = os.open(marker, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        holder = marker.read_text(encoding="utf-8", errors="replace").rpartition("pid ")[2]
        raise DriversError(
            f"run directory {path} is in use by another dbbench run (pid {holder.strip()}); "
            "wait for it or choose another --out"
        ) from None
    _HELD[_key(path)] = fd


def _key(path: Path) -> Path:
    return path.resolve()


def release_run_dir(path: Path) -> None:
    """Give up the lock taken by :func:`prepare_run_dir`."""
    fd = _HELD.pop(_key(path), None)
    if fd is not None:
        os.close(fd)


def _check_not_in_use(path: Path) -> None:
    if (path / MARKER_FILE).is_file() and _key(path) not in _HELD:
        _lock(path)
        release_run_dir(path)


def prepare_run_dir(path: Path, *, force: bool, keep: tuple[str, ...] = ()) -> bool:
    """Leave ``path`` a run directory with none of dbbench's files in it (other than those
    named in ``keep``, e.g. a database a previous ``load`` left there) and the marker
    written and locked for this process (:func:`release_run_dir`); True when dbbench
    created the directory (a failed start may remove it again).
    """
    if path.is_symlink():
        _refuse_dangerous(path)
    if path.is_dir():
        _check_not_in_use(path)
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
    _lock(path)
    os.ftruncate(_HELD[_key(path)], 0)
    os.pwrite(_HELD[_key(path)], f"{MARKER_TEXT}last used by pid {os.getpid()}\n".encode(), 0)
    return created


def remove_own_files(path: Path, *, keep: tuple[str, ...] = ()) -> None:
    """Remove what dbbench wrote into the run directory ``path``, nothing else."""
    for entry in path.iterdir():
        name = entry.name
        if name in keep or name == MARKER_FILE:
            continue
        if entry.is_symlink():
            if name in OWN_FILES or name.startswith(OWN_PREFIXES):
                entry.unlink()  # the link itself: a journal or report is never written through
            continue  # never follow a link
        if not (entry.is_file() or entry.is_dir()):
            continue  # sockets, fifos: not ours
        if entry.is_file() and (name in OWN_FILES or name.startswith(OWN_PREFIXES)):
            entry.unlink()
        elif entry.is_dir() and name in OWN_DIRS:
            shutil.rmtree(entry)
    if _key(path) not in _HELD:
        with contextlib.suppress(FileNotFoundError):
            (path / MARKER_FILE).unlink()


def unfinished_run(path: Path) -> str | None:
    """What ``--force`` would drop when ``path`` holds the journal of a run that never
    finished (no ``benchmark_end``), as a phrase; None when there is no such journal."""
    journal = path / JOURNAL_FILE
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
    release_run_dir(path)
    with contextlib.suppress(OSError):
        if [p.name for p in path.iterdir()] == [MARKER_FILE]:
            (path / MARKER_FILE).unlink()
        path.rmdir()
    # not empty (or already gone): leave it alone
