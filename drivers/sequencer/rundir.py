"""The run directory: where one benchmark's journal, result and reports go.

A run directory is never overwritten by accident: an existing, non-empty one is refused
unless ``force`` is given, and even then only if it looks like a dbbench run directory (it
holds a journal or a result), so ``--force`` can never wipe an unrelated folder.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from dbbench.drivers.errors import DriversError
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE

MARKERS = (JOURNAL_FILE, RESULT_FILE)


def is_run_dir(path: Path) -> bool:
    return any((path / name).exists() for name in MARKERS)


def prepare_run_dir(path: Path, *, force: bool) -> bool:
    """Leave ``path`` an empty directory; True when dbbench made it so (a failed start may
    then remove it again)."""
    if path.exists() and not path.is_dir():
        raise DriversError(f"{path} exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise DriversError(f"run directory {path} already exists; use --force to replace it")
        if not is_run_dir(path):
            raise DriversError(
                f"{path} is not empty and holds no dbbench run (no {JOURNAL_FILE} or "
                f"{RESULT_FILE}); refusing to replace it even with --force"
            )
        shutil.rmtree(path)
    created = not path.exists()
    path.mkdir(parents=True, exist_ok=True)
    return created


def remove_if_empty(path: Path) -> None:
    # not empty (or already gone): leave it alone
    with contextlib.suppress(OSError):
        path.rmdir()
