"""Progress reporting for the writer: a protocol, a silent sink and a rich terminal bar.

The writer never prints (it is library code); it reports rows and bytes to a
:class:`ProgressSink` that the caller chooses. The CLI picks :class:`RichProgress` when
stderr is a terminal and :class:`NullProgress` otherwise, so logs and pipes stay clean.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class ProgressSink(Protocol):
    """What the writer calls while it works; every method must be cheap."""

    def start(self, total_rows: int, files: int) -> None:
        """Work begins: ``total_rows`` is an estimate (lineitem counts are not known ahead)."""

    def advance(self, rows: int, nbytes: int) -> None:
        """``rows`` more rows and ``nbytes`` more output bytes were produced."""

    def file_done(self, name: str) -> None:
        """A file was completed and renamed to its final name."""

    def finish(self) -> None:
        """All work is over (successfully or not): release the terminal."""


class NullProgress:
    """Reports nothing: for pipes, logs, ``--quiet`` and library callers."""

    def start(self, total_rows: int, files: int) -> None:
        return None

    def advance(self, rows: int, nbytes: int) -> None:
        return None

    def file_done(self, name: str) -> None:
        return None

    def finish(self) -> None:
        return None


class _RateColumn(ProgressColumn):
    """Output megabytes per second since the start (bytes ride in the task's fields)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        nbytes = float(task.fields.get("nbytes", 0))
        rate = nbytes / elapsed / 1e6 if elapsed > 0 else 0.0
        return Text(f"{nbytes / 1e6:,.0f} MB {rate:,.1f} MB/s", style="progress.data.speed")


class RichProgress:
    """One bar for the whole run: rows done / estimated, MB and MB/s, elapsed and ETA."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        console = Console(file=stream, stderr=stream is None)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed:,.0f}/{task.total:,.0f} rows"),
            _RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task: TaskID | None = None
        self._files = 0
        self._done = 0
        self._bytes = 0

    def start(self, total_rows: int, files: int) -> None:
        self._files = files
        self._progress.start()
        self._task = self._progress.add_task(self._label(), total=max(total_rows, 1), nbytes=0)

    def advance(self, rows: int, nbytes: int) -> None:
        if self._task is None:
            return
        self._bytes += nbytes
        self._progress.update(self._task, advance=rows, nbytes=self._bytes)

    def file_done(self, name: str) -> None:
        self._done += 1
        if self._task is not None:
            self._progress.update(self._task, description=self._label())

    def finish(self) -> None:
        if self._task is not None:
            task = self._progress.tasks[0]
            self._progress.update(self._task, total=max(task.completed, 1))
        self._progress.stop()

    def _label(self) -> str:
        return f"gen {self._done}/{self._files} files"


@dataclass(frozen=True)
class Summary:
    """What a finished run produced; ``line()`` is the one line the CLI prints."""

    tables: int
    files: int
    rows: int
    nbytes: int
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.nbytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def line(self) -> str:
        return (
            f"{self.tables} tables, {self.files} files, {self.rows:,} rows, "
            f"{self.nbytes / 1e6:,.1f} MB in {self.seconds:.1f} s ({self.mb_per_s:,.1f} MB/s)"
        )
