"""Progress reporting, the one design of the whole kit: a sink protocol and a silent sink.

Library code never prints or draws. The generator's writer (:mod:`dbgen.writer`) and the
loader (``drivers.loader``) report rows and bytes to a :class:`ProgressSink` that the
caller chooses; the command line draws (``dbbench.commands``: a rich bar or live table on a
terminal, nothing or plain lines elsewhere) and :class:`NullSink` reports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class ProgressSink(Protocol):
    """What the writer and the loader call while they work; every method must be cheap.

    An *output* is a file the writer completes or a table the loader completes. The loader
    calls :meth:`advance` and :meth:`output_done` from its loading threads, concurrently.
    """

    def start(self, total_rows: int, outputs: int) -> None:
        """Work begins: ``total_rows`` is an estimate (lineitem counts are not known ahead)."""

    def advance(self, rows: int, nbytes: int) -> None:
        """``rows`` more rows and ``nbytes`` more bytes were produced (bytes may be 0)."""

    def output_done(self, name: str) -> None:
        """An output (a file, renamed to its final name, or a loaded table) is complete."""

    def finish(self) -> None:
        """All work is over (successfully or not): release whatever shows the progress."""


class NullSink:
    """Reports nothing: for pipes, logs, ``--quiet`` and library callers."""

    def start(self, total_rows: int, outputs: int) -> None:
        return None

    def advance(self, rows: int, nbytes: int) -> None:
        return None

    def output_done(self, name: str) -> None:
        return None

    def finish(self) -> None:
        return None


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
