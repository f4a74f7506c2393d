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
        #: the process's CPU seconds the last :meth:`write` took (0 before one)
        self.cpu_seconds = 0.0

    def keep(self, run: int, stream: int, query: int, columns: list[str], rows: Any) -> None:
        with self._lock:
            self._outputs.append(KeptOutput(run, stream, query, columns, rows))

    def __len__(self) -> int:
        return len(self._outputs)

    def write(self, path: Path) -> Answers:
        """Digest every kept output, write the rows to ``path`` (stream order) and return
        what the result keeps; :attr:`cpu_seconds` is the process's CPU time it took."""
        start, cpu = time.monotonic(), time.process_time()
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
        self.cpu_seconds = time.process_time() - cpu
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
