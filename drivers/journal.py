"""The run journal: one JSON event per line, appended and flushed as it happens.

The journal is the run's black box. Whatever stops a run (a lost server, Ctrl-C, a full disk),
every interval measured before the stop is already on disk, so a partial result can always
be rebuilt from it. Lines are only ever appended; a reader tolerates a torn last line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import IO, Any

from dbbench.reports.safeio import open_append


class Journal:
    """Append-only JSON-lines writer, safe to share between stream threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # the kit's one appender: never through a symbolic link (a reused run directory's)
        self._file: IO[str] | None = open_append(path)
        self._lock = threading.Lock()

    def event(self, event: str, **fields: Any) -> None:
        """Append one event with the wall-clock time it was written, then flush it.

        Flushing (not fsync) per event keeps the harness cheap while surviving a crash of
        this process; :meth:`sync` makes the file durable at phase boundaries.
        """
        record = {"event": event, "time": round(time.time(), 6), **fields}
        line = json.dumps(record, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            if self._file is None:
                raise ValueError(f"journal {self.path.name} is closed")
            try:
                self._file.write(line)
                self._file.flush()
            except OSError as exc:  # a full disk: name the file
                if exc.filename is None:
                    raise OSError(exc.errno, exc.strerror, str(self.path)) from exc
                raise

    def sync(self) -> None:
        """Make everything written so far durable."""
        with self._lock:
            if self._file is not None:
                self._file.flush()
                os.fsync(self._file.fileno())

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                try:
                    self._file.close()
                finally:
                    self._file = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_journal(path: Path) -> list[dict[str, Any]]:
    """Every complete event of a journal; a torn last line (a crash mid-write) is skipped."""
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            events.append(json.loads(line))
    return events
