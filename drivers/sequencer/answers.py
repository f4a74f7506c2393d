"""Answers: every query's output as it ran, kept beside the result (issue 35).

A stream hands each query's rows to :class:`AnswerKeeper` once its interval is measured (a
reference to the list the engine returned: no copy, no work inside the stream). After the
last run, never inside a timed interval, :meth:`AnswerKeeper.write` digests every execution
(``queries.validate.answer_digest``: values normalised by the spec's column classes, so
engines that agree digest alike) and writes the rows to the run directory's
``answers.jsonl.gz``, one JSON line per (run, stream, query) in stream order: ``run``,
``stream``, ``query``, ``columns`` and ``rows`` (numbers as their exact text, dates as ISO
text). The result keeps each execution's row count and digest. ``dbbench verify --answers``
(``sequencer.answers_check``) reads them back and checks them by value.

When the plan capture follows the measured work and no cold/hot pass does (a plain
``dbbench run``), the benchmark writes the answers on a thread of their own beside the
capture (:meth:`AnswerKeeper.start`; nothing timed runs meanwhile: the last interval has
ended and the capture is unmeasured) and waits for them (:meth:`AnswerKeeper.join`) before
the result is written, on a stop too. The digests and the file are the same either way.

What it costs is measured in ``benchmarks/answers_overhead.py``.
"""

from __future__ import annotations

import gzip
import io
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from dbbench.drivers.errors import DriversError
from dbbench.queries.validate import answer_digest
from dbbench.reports import safeio
from dbbench.reports.tpch.model import AnswerRecord, Answers


@dataclass(frozen=True)
class KeptOutput:
    """One execution's output as kept: where it ran and its columns and rows."""

    run: int
    stream: int
    query: int
    columns: list[str]
    rows: Sequence[Sequence[Any]]


def _plain(value: Any) -> Any:
    """A value JSON cannot hold as it is: exact decimals and dates as their text."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == datetime.min.time() else str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


class AnswerKeeper:
    """The outputs of a benchmark's queries, collected from the streams' threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._outputs: list[KeptOutput] = []
        #: the CPU seconds of the thread that made the last :meth:`write` (0 before one)
        self.cpu_seconds = 0.0
        self._thread: threading.Thread | None = None
        self._written: Answers | None = None
        self._failed: BaseException | None = None

    def keep(self, run: int, stream: int, query: int, columns: list[str], rows: Any) -> None:
        with self._lock:
            self._outputs.append(KeptOutput(run, stream, query, columns, rows))

    def __len__(self) -> int:
        return len(self._outputs)

    def start(self, path: Path) -> None:
        """:meth:`write` on a thread of its own (after the measured work, beside unmeasured
        work); :meth:`join` waits for it and returns what it wrote."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._write_aside, args=(path,), name="answers")
        self._thread.start()

    def _write_aside(self, path: Path) -> None:
        try:
            self._written = self.write(path)
        except BaseException as exc:  # raised again in the thread that joins
            self._failed = exc

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def busy(self) -> bool:
        """Whether a :meth:`start` is still writing."""
        return self._thread is not None and self._thread.is_alive()

    def join(self) -> Answers:
        """Wait for the :meth:`start` ed write: what it wrote, or its error raised here."""
        if self._thread is None:
            raise RuntimeError("the answers were not started")
        self._thread.join()
        if self._failed is not None:
            raise self._failed
        assert self._written is not None
        return self._written

    def write(self, path: Path) -> Answers:
        """Digest every kept output, write the rows to ``path`` (stream order) and return
        what the result keeps; :attr:`cpu_seconds` is the CPU time of the thread it ran on."""
        start, cpu = time.monotonic(), time.thread_time()
        with self._lock:
            outputs = sorted(self._outputs, key=lambda o: (o.run, o.stream))
        lines: list[str] = []
        records: list[AnswerRecord] = []
        for out in outputs:
            records.append(
                AnswerRecord(
                    out.run, out.stream, out.query, len(out.rows),
                    answer_digest(out.query, out.rows),
                )
            )  # fmt: skip
            entry: dict[str, Any] = {"run": out.run, "stream": out.stream, "query": out.query}
            entry |= {"columns": out.columns, "rows": out.rows}  # tuples: JSON arrays
            lines.append(json.dumps(entry, ensure_ascii=False, default=_plain))
        buffer = io.BytesIO()
        # mtime 0: the same outputs make the same bytes; level 1: a quarter of level 6's time
        with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=1) as gz:
            gz.write(("\n".join(lines) + "\n").encode("utf-8") if lines else b"")
        data = buffer.getvalue()
        safeio.write_bytes(path, data)
        self.cpu_seconds = time.thread_time() - cpu
        return Answers(
            kept=True, seconds=time.monotonic() - start, bytes=len(data), records=records
        )


def read_outputs(path: Path) -> Iterator[KeptOutput]:
    """The kept outputs of a run directory's answers file, in the file's order; a missing or
    damaged file is one line (:class:`DriversError`)."""
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except FileNotFoundError:
        raise DriversError(
            f"{path}: no kept answers (the run kept none, or the file is gone)"
        ) from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DriversError(f"{path.name} cannot be read: {exc}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            yield KeptOutput(
                int(entry["run"]), int(entry["stream"]), int(entry["query"]),
                [str(c) for c in entry["columns"]], entry["rows"],
            )  # fmt: skip
        except (ValueError, KeyError, TypeError) as exc:
            raise DriversError(f"{path.name} line {number} is damaged: {exc}") from None
