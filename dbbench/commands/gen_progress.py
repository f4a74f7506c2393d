"""The progress bar of ``dbbench gen``: the writer's progress sink, drawn with rich.

The generator only reports to a :class:`~dbbench.dbgen.progress.ProgressSink`; drawing
belongs to the command line. ``gen`` uses this bar when stderr is a terminal and
:class:`~dbbench.dbgen.progress.NullSink` otherwise, so logs and pipes stay clean.
"""

from __future__ import annotations

from typing import IO

import rich.progress
from rich.console import Console
from rich.progress import (
    BarColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateColumn(ProgressColumn):
    """Output megabytes per second since the start (bytes ride in the task's fields)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        nbytes = float(task.fields.get("nbytes", 0))
        rate = nbytes / elapsed / 1e6 if elapsed > 0 else 0.0
        return Text(f"{nbytes / 1e6:,.0f} MB {rate:,.1f} MB/s", style="progress.data.speed")


class GenProgressBar:
    """A :class:`~dbbench.dbgen.progress.ProgressSink` drawn as one bar for the whole run:
    rows done / estimated, MB and MB/s, elapsed and ETA."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        console = Console(file=stream, stderr=stream is None)
        self._progress = rich.progress.Progress(
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

    def start(self, total_rows: int, outputs: int) -> None:
        self._files = outputs
        self._progress.start()
        self._task = self._progress.add_task(self._label(), total=max(total_rows, 1), nbytes=0)

    def advance(self, rows: int, nbytes: int) -> None:
        if self._task is None:
            return
        self._bytes += nbytes
        self._progress.update(self._task, advance=rows, nbytes=self._bytes)

    def output_done(self, name: str) -> None:
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
