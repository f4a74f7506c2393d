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

An output equal to an earlier one (the two performance runs of a fixed ``--seed`` repeat
their streams' parameters, and Q16, the largest output, reads no table the refresh functions
change) is digested and encoded once; the digests are made in a forked process on another core while
this one writes the file (:data:`FORK_ROWS`; one that fails or hangs is replaced here).

What it costs is measured in ``benchmarks/answers_overhead.py``.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import io
import json
import os
import select
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from itertools import chain
from pathlib import Path
from typing import Any, NoReturn

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


#: the types of value whose equal values are equal JSON text and digest (not Decimal, whose
#: equal values may differ in digits; float, in the sign of zero; nor 1.0 or True, equal to 1)
_PLAIN_TYPES = frozenset((str, int, date, type(None)))


def _plain_rows(rows: Sequence[Sequence[Any]]) -> bool:
    """Whether rows equal to ``rows`` are the same answer line and digest: a list of tuples
    (or of lists) of text, ints, dates and NULLs (checked with no Python call per value)."""
    return (
        rows.__class__ is list
        and set(map(type, rows)) <= {tuple, list}
        and set(map(type, chain.from_iterable(rows))) <= _PLAIN_TYPES
    )


def _same(outputs: list[KeptOutput], m: int, n: int, plain: dict[int, bool]) -> bool:
    """Whether output ``n`` is output ``m`` again: equal rows (compared first: unequal ones
    differ at once), both :func:`_plain_rows` (known once per output)."""
    if outputs[n].rows.__class__ is not list or outputs[m].rows != outputs[n].rows:
        return False
    for k in (m, n):
        if k not in plain:
            plain[k] = _plain_rows(outputs[k].rows)
    return plain[m] and plain[n]


def _line(out: KeptOutput, rows_text: str) -> str:
    """The output's line of the answers file: ``json.dumps`` of its run, stream, query,
    columns and rows (tuples: JSON arrays), the rows' text made before."""
    head = {"run": out.run, "stream": out.stream, "query": out.query, "columns": out.columns}
    return f'{json.dumps(head, ensure_ascii=False, default=_plain)[:-1]}, "rows": {rows_text}}}'


#: Digests are made in a forked process, on another core, beside the answers file (the
#: parent's), when the outputs to digest hold at least this many rows in all (a DuckDB SF 1
#: benchmark: about 120,000) and the machine has two cores (Linux only: a fork there copies
#: only the page tables, about 10 to 25 ms of a process of 1 GB)
FORK_ROWS = 20_000
#: the seconds, beyond ten times its own share's, the parent waits for the forked process
#: before it makes the digests itself
WAIT_SECONDS = 30.0
_DIGEST_BYTES = 65  # a digest's hex text and its newline, as the forked process sends it
_CPU_BYTES = 32  # then its CPU seconds, as text of that width with a newline


def _digests(work: Sequence[KeptOutput]) -> list[str]:
    return [answer_digest(out.query, out.rows) for out in work]


class _Forked:
    """Digests made by a forked copy of this process, sent back through a pipe: a failing,
    killed or silent one is no error, its digests are made here instead."""

    def __init__(self, work: Sequence[KeptOutput]) -> None:
        self.work = work
        self.cpu_seconds = 0.0  # the process's, once collected
        self.pid, self._read = 0, -1

    def start(self) -> bool:
        """Fork the process; False where that fails (out of processes or memory)."""
        try:
            read, write = os.pipe()
        except OSError:
            return False
        # held over the fork: SIGINT (the copy must never run this process's handlers) and
        # the garbage collector (nor finalizers of this process's objects, engines' among
        # them)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        collecting = gc.isenabled()
        gc.disable()
        try:
            with warnings.catch_warnings():  # Python 3.12+: forking beside threads warns
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                _child(read, write, self.work)  # never returns
            self.pid, self._read = pid, read
        except OSError:
            os.close(read)
            return False
        finally:
            os.close(write)
            if collecting:
                gc.enable()
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C held is raised now
        return True

    def collect(self, timeout: float) -> list[str] | None:
        """The digests, or None when the process failed or sent none within ``timeout``."""
        want, data = len(self.work) * _DIGEST_BYTES, b""
        deadline = time.monotonic() + timeout
        while len(data) < want + _CPU_BYTES:  # the digests, then its CPU seconds
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                return None
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                break
            data += chunk
        digests, cpu = data[:want].decode().split(), data[want:].decode().strip()
        if len(digests) != len(self.work) or not cpu.replace(".", "", 1).isdigit():
            return None
        self.cpu_seconds = float(cpu)
        return digests

    def close(self) -> None:
        """Stop the process and reap it (on a thread: its exit unmaps a copy of this one)."""
        if self._read >= 0:
            os.close(self._read)
            self._read = -1
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)  # stopped here, or done already
            threading.Thread(target=_reap, args=(self.pid,), daemon=True).start()
            self.pid = 0


def _child(read: int, write: int, work: Sequence[KeptOutput]) -> NoReturn:
    """The forked process: the digests of ``work``, then its CPU seconds, to ``write``."""
    code = 1
    try:  # (the garbage collector is off: see _Forked)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle
        os.close(read)
        text = (
            "".join(f"{d}\n" for d in _digests(work))
            + f"{time.process_time():{_CPU_BYTES - 1}.6f}\n"
        )
        view = memoryview(text.encode())
        while view:
            view = view[os.write(write, view) :]
        code = 0
    finally:
        os._exit(code)  # nothing of the parent's (handlers, buffers, atexit) runs here


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _worth_forking(work: Sequence[KeptOutput], fork_rows: int) -> bool:
    """Whether to digest ``work`` in a forked process: enough rows, Linux, two cores."""
    return (
        bool(work)
        and sum(len(out.rows) for out in work) >= fork_rows
        and sys.platform.startswith("linux")
        and len(os.sched_getaffinity(0)) >= 2
    )


class AnswerKeeper:
    """The outputs of a benchmark's queries, collected from the streams' threads."""

    def __init__(self, fork_rows: int | None = None) -> None:
        self._lock = threading.Lock()
        self._outputs: list[KeptOutput] = []
        self._fork_rows = fork_rows  # None: FORK_ROWS
        #: the CPU seconds the last :meth:`write` took, a forked process's included (0
        #: before one)
        self.cpu_seconds = 0.0
        #: whether the last :meth:`write` had its digests made by a forked process
        self.forked = False

    def keep(self, run: int, stream: int, query: int, columns: list[str], rows: Any) -> None:
        with self._lock:
            self._outputs.append(KeptOutput(run, stream, query, columns, rows))

    def __len__(self) -> int:
        return len(self._outputs)

    def write(self, path: Path) -> Answers:
        """Digest every kept output, write the rows to ``path`` (stream order) and return
        what the result keeps; :attr:`cpu_seconds` is the CPU time it took.

        An output equal to one before it (same query, equal rows of text, ints, dates and
        NULLs: :func:`_plain_rows`) reuses its rows' text and digest. The digests are made
        in a forked process (:data:`FORK_ROWS`) while this one writes the file, or here."""
        start, cpu = time.monotonic(), time.process_time()
        with self._lock:
            outputs = sorted(self._outputs, key=lambda o: (o.run, o.stream))
        first: list[int] = []  # per output, the position of the first output equal to it
        earlier: dict[tuple[int, int], list[int]] = {}  # by query and row count
        plain: dict[int, bool] = {}  # per position compared equal, whether _plain_rows
        for n, out in enumerate(outputs):
            same = earlier.setdefault((out.query, len(out.rows)), [])
            first.append(next((m for m in same if _same(outputs, m, n, plain)), n))
            if first[n] == n:
                same.append(n)
        distinct = sorted(set(first))
        work = [outputs[n] for n in distinct]
        forked = (
            _Forked(work)
            if _worth_forking(work, FORK_ROWS if self._fork_rows is None else self._fork_rows)
            else None
        )
        made = None
        try:
            if forked is not None and not forked.start():
                forked = None
            texts = {
                n: json.dumps(outputs[n].rows, ensure_ascii=False, default=_plain) for n in distinct
            }
            lines = [_line(out, texts[m]) for out, m in zip(outputs, first, strict=True)]
            buffer = io.BytesIO()
            # mtime 0: the same outputs make the same bytes; level 1: a quarter of level 6's time
            with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=1) as gz:
                gz.write(("\n".join(lines) + "\n").encode("utf-8") if lines else b"")
            data = buffer.getvalue()
            safeio.write_bytes(path, data)
            if forked is not None:
                made = forked.collect(WAIT_SECONDS + 10 * (time.monotonic() - start))
            digests = dict(zip(distinct, made or _digests(work), strict=True))
        finally:
            if forked is not None:
                forked.close()
        records = [
            AnswerRecord(out.run, out.stream, out.query, len(out.rows), digests[m])
            for out, m in zip(outputs, first, strict=True)
        ]
        self.forked = made is not None
        self.cpu_seconds = time.process_time() - cpu + (forked.cpu_seconds if forked else 0.0)
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
