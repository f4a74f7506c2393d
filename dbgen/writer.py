"""Writes tables and update sets to files: in parallel, in row order, atomically.

How it works, and why:

* A file is cut into *segments*, each an independent dbgen chunk (``table_batches`` with
  ``part``/``parts``), so that processes can generate them at the same time. There are more
  segments than processes (about one per :data:`SEGMENT_BYTES` of output) so that the big
  tables do not leave one core working alone at the end.
* Every segment goes to its own temporary file in a private spool (shared memory when it
  has room, :mod:`dbgen.spool`: segments never reach a disk, which at SF10 would write the
  data twice); the parent process appends them to the file's temporary in order as they
  complete (``copy_file_range`` or ``sendfile``: no copy through user space) and renames the
  result to its final name only when it is whole. At most :data:`WINDOW_PER_JOB` segments
  per process are in flight (submitted, and not yet appended), which bounds the spool. For
  Parquet each segment is a complete Parquet file, encoded in its worker; the parent joins
  their row groups in order under one footer (:mod:`dbgen.formats.parquet_splice`, no re-encoding).
  So output is identical to a serial run, and an interrupted or failed run leaves no file
  that looks complete: temporaries are removed, only finished files carry final names.
* Memory is bounded by one generator batch (and, for Parquet, one row group) per process,
  whatever the scale factor.
"""

from __future__ import annotations

import contextlib
import errno
import math
import multiprocessing
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.formats.parquet_splice import ParquetSplicer
from dbbench.dbgen.generators import GENERATORS
from dbbench.dbgen.progress import NullSink, ProgressSink, Summary
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.segments import (
    Encoding,
    Segment,
    Source,
    init_worker,
    worker_segment,
    write_segment,
)
from dbbench.dbgen.spool import make_spool

Format = Literal["tbl", "csv", "parquet"]
FORMATS: tuple[Format, ...] = ("tbl", "csv", "parquet")

#: Aim for segments of about this much .tbl output: small enough to balance two to many
#: cores, large enough that per-segment costs (stream skip-ahead, a temp file) do not show.
SEGMENT_BYTES = 32 * 1024 * 1024
#: At most this many segments per file, so that planning SF 100000 stays small; a segment
#: is still streamed batch by batch, so only its duration grows, not memory.
MAX_SEGMENTS = 4096
#: Segments in flight per process: enough that no process waits for work while an earlier
#: segment finishes, few enough that the spool stays at a few hundred MiB.
WINDOW_PER_JOB = 4
SPOOL_PREFIX = "dbbench-gen-"  # + the generating process's id

#: Average row length of a delete file (the tables' own are in the registry): only used to
#: size segments and the progress estimate, never for correctness.
_DELETE_ROW_BYTES = 8


@dataclass(frozen=True)
class GenOptions:
    """Everything ``dbbench gen`` asks for; validated by :func:`plan`."""

    sf: float
    out_dir: Path
    tables: tuple[str, ...] = tuple(TABLES)
    fmt: Format = "tbl"
    parts: int = 1
    part: int | None = None  # None: every part of ``parts``
    updates: int = 0  # > 0: write update sets 1..updates and no base table
    force: bool = False
    trailing_separator: bool = True
    jobs: int = 0  # 0: every core this process may use
    segment_bytes: int = SEGMENT_BYTES  # smaller in tests, to exercise the assembly


@dataclass
class OutputFile:
    """A file to produce: its final path, the temporary it is built in, its segments."""

    source: Source
    final: Path
    temp: Path
    fmt: Format
    expected_rows: int
    segments: list[Segment] = field(default_factory=list)

    @property
    def table(self) -> str:
        return self.source.table


# ----------------------------------------------------------------------------- planning


def resolve_jobs(jobs: int) -> int:
    """``jobs`` if positive, else the number of cores this process may run on."""
    if jobs > 0:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def plan(options: GenOptions, token: str = "plan", spool: Path | None = None) -> list[OutputFile]:
    """The files a run writes, in order, each cut into segments; raises on bad options.

    Segments other than a text file's first are written in ``spool`` (default: the output
    directory)."""
    api.validate_scale(options.sf)
    if options.fmt not in FORMATS:
        raise DbgenError(f"unknown format {options.fmt!r}; expected one of {', '.join(FORMATS)}")
    if options.parts < 1:
        raise DbgenError(f"--parts must be at least 1, got {options.parts}")
    most = api.order_count(options.sf)  # a chunk holds at least one order
    if options.parts > most:  # -C 1000000000 planned a billion files (2 GB in 34 s)
        raise DbgenError(
            f"--parts {options.parts}: at most {most:,} at SF {options.sf:g} "
            "(a chunk holds at least one order)"
        )
    if options.part is not None and not 1 <= options.part <= options.parts:
        raise DbgenError(f"--part must be between 1 and {options.parts}, got {options.part}")
    if options.updates < 0:
        raise DbgenError(f"-U/--updates must be positive, got {options.updates}")
    files = _update_files(options) if options.updates else _table_files(options)
    for index, out in enumerate(files):
        out.temp = options.out_dir / f".{out.final.name}.{token}.tmp"
        _cut(out, index, options, token, spool or options.out_dir)
    return files


def _file_name(table: str, fmt: Format, part: int | None) -> str:
    if fmt == "tbl":
        return f"{table}.tbl" if part is None else f"{table}.tbl.{part}"
    return f"{table}.{fmt}" if part is None else f"{table}.{part}.{fmt}"


def _table_files(options: GenOptions) -> list[OutputFile]:
    files: list[OutputFile] = []
    chunked = options.parts > 1
    wanted = [options.part] if options.part is not None else range(1, options.parts + 1)
    for table in options.tables:
        rows = api.row_count(table, options.sf)
        if not GENERATORS[table].chunked:  # NATION, REGION: written once, whole
            if options.part in (None, 1):
                path = options.out_dir / _file_name(table, options.fmt, None)
                source = Source("table", table, options.sf)
                files.append(OutputFile(source, path, path, options.fmt, rows))
            continue
        for k in wanted:
            path = options.out_dir / _file_name(table, options.fmt, k if chunked else None)
            source = Source("table", table, options.sf, k, options.parts)
            files.append(OutputFile(source, path, path, options.fmt, rows // options.parts))
    return files


def _update_files(options: GenOptions) -> list[OutputFile]:
    files: list[OutputFile] = []
    per_set = api.rows_per_update_set(options.sf)
    fmt = options.fmt
    for n in range(1, options.updates + 1):
        tbl = fmt == "tbl"
        for source, name, rows in (
            (
                Source("update", "orders", options.sf, update_set=n),
                f"orders.tbl.u{n}" if tbl else f"orders.u{n}.{fmt}",
                per_set,
            ),
            (
                Source("update", "lineitem", options.sf, update_set=n),
                f"lineitem.tbl.u{n}" if tbl else f"lineitem.u{n}.{fmt}",
                per_set * 4,
            ),
            (
                Source("delete", "delete", options.sf, update_set=n),
                f"delete.{n}" if tbl else f"delete.{n}.{fmt}",
                per_set,
            ),
        ):
            path = options.out_dir / name
            files.append(OutputFile(source, path, path, fmt, rows))
    return files


def _row_bytes(out: OutputFile) -> int:
    """Average output row length of a file (sizes segments, orders the work)."""
    return _DELETE_ROW_BYTES if out.source.kind == "delete" else GENERATORS[out.table].row_bytes


def split_count(base: int, part: int, parts: int, wanted: int) -> int:
    """How many sub-chunks of ``part``/``parts`` to make, at most ``wanted``.

    Sub-chunk j of ``parts * m`` chunks starts at row (j-1)·⌊base/(parts·m)⌋, so the
    sub-chunks of part K line up exactly with part K's own boundaries when m divides
    ⌊base/parts⌋ (a whole table, ``parts == 1``, has no inner boundary to match). The
    largest such m not above ``wanted`` is chosen; 1 always works.
    """
    wanted = max(1, min(wanted, base))
    if parts == 1:
        return wanted
    q = base // parts
    for m in range(wanted, 0, -1):
        if q % m == 0:
            return m
    return 1


def _cut(out: OutputFile, index: int, options: GenOptions, token: str, spool: Path) -> None:
    """Replace the file's placeholder by its real segments and temporary paths."""
    source = out.source
    count = 1
    gen = GENERATORS[out.table] if source.kind == "table" else None
    if gen is not None and gen.chunked:
        estimate = out.expected_rows * gen.row_bytes
        wanted = min(MAX_SEGMENTS, math.ceil(estimate / max(1, options.segment_bytes)))
        base = gen.units(api.validate_scale(options.sf))
        count = split_count(base, source.part, source.parts, wanted)
    encoding: Encoding = out.fmt
    segments = []
    for j in range(count):
        if count > 1:
            parts = source.parts * count
            sub = Source("table", out.table, options.sf, (source.part - 1) * count + j + 1, parts)
        else:
            sub = source
        text_first = j == 0 and encoding in ("tbl", "csv")
        path = out.temp if (count == 1 or text_first) else _segment_path(out, token, j, spool)
        segments.append(
            Segment(index, j, sub, str(path), encoding, j == 0, options.trailing_separator)
        )
    out.segments = segments


def _segment_path(out: OutputFile, token: str, j: int, spool: Path) -> Path:
    return spool / f".{out.final.name}.{token}.{j}.seg"


# ----------------------------------------------------------------------------- assembling


_NO_KERNEL_COPY = (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP)


def _append_file(dst: Path, src: str) -> None:
    """Append ``src`` to ``dst`` inside the kernel where it can (no copy via Python).

    ``copy_file_range`` first; where the kernel has none here (since Linux 5.19 not across
    filesystems: the spool in shared memory, the output on disk), ``sendfile`` goes on from
    where it left both positions, still inside the kernel; only where neither works, user
    space (1 MiB reads are fresh mappings that the kernel zeroes and a copy more: about a
    tenth of the parent's CPU for SF1 ``.tbl``)."""
    with open(dst, "r+b") as out, open(src, "rb") as inp:
        out.seek(0, os.SEEK_END)
        remaining = os.fstat(inp.fileno()).st_size
        i, o = inp.fileno(), out.fileno()
        kernel_copies: tuple[Callable[[int], int], ...] = (
            lambda n: os.copy_file_range(i, o, n),
            lambda n: os.sendfile(o, i, None, n),
        )
        for copy in kernel_copies:
            try:
                while remaining > 0:
                    n = copy(min(remaining, 1 << 30))
                    if n == 0:
                        return
                    remaining -= n
                return
            except OSError as exc:
                if exc.errno not in _NO_KERNEL_COPY:
                    raise
        shutil.copyfileobj(inp, out, 1 << 20)


class _Assembler:
    """Joins each file's segments in order as they complete; renames finished files."""

    def __init__(self, files: list[OutputFile], progress: ProgressSink) -> None:
        self.files = files
        self.progress = progress
        self._rows: list[dict[int, int]] = [{} for _ in files]
        self._next = [0] * len(files)
        self._parquet: dict[int, ParquetSplicer] = {}
        self.rows = 0
        self.nbytes = 0
        self.appended = 0  # segments joined into their file so far, of every file

    def complete(self, segment: Segment, rows: int) -> None:
        """Segment done: append every segment of its file that is now next in line."""
        i = segment.file_index
        out = self.files[i]
        self._rows[i][segment.seq] = rows
        while self._next[i] in self._rows[i]:
            self._append(i, out.segments[self._next[i]])
            self.rows += self._rows[i].pop(self._next[i])
            self._next[i] += 1
            self.appended += 1
        if self._next[i] == len(out.segments):
            self._finish(i)

    def _append(self, i: int, segment: Segment) -> None:
        out = self.files[i]
        if segment.encoding == "parquet" and segment.path != str(out.temp):
            splicer = self._parquet.get(i)
            if splicer is None:
                splicer = self._parquet[i] = ParquetSplicer(out.temp)
            splicer.append(segment.path)
            os.unlink(segment.path)
        elif segment.path != str(out.temp):
            _append_file(out.temp, segment.path)
            os.unlink(segment.path)

    def _finish(self, i: int) -> None:
        out = self.files[i]
        splicer = self._parquet.pop(i, None)
        if splicer is not None:
            splicer.close()
        _check_replaceable(out.final)  # it may have become a device or a link meanwhile
        os.replace(out.temp, out.final)
        self.nbytes += out.final.stat().st_size
        self.progress.output_done(out.final.name)

    def abort(self) -> None:
        for splicer in self._parquet.values():
            splicer.abort()
        self._parquet.clear()


# ----------------------------------------------------------------------------- running


def _drain(queue: Any, progress: ProgressSink) -> None:
    rows = nbytes = 0
    while True:
        try:
            r, b = queue.get_nowait()
        except Exception:  # queue.Empty: nothing more for now
            break
        rows += r
        nbytes += b
    if rows or nbytes:
        progress.advance(rows, nbytes)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Kill running workers now: before Python 3.14 the pool has no public way to do it."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    # the pool's manager thread, taken now: shutdown() drops the pool's reference to it
    manager = getattr(pool, "_executor_manager_thread", None)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(10)
    pool.shutdown(wait=False, cancel_futures=True)
    # Let the pool's manager thread see the dead workers and close its wake-up pipe now:
    # left running, it races Python's exit hook, which then writes to the closed pipe
    # and prints a traceback after our one error line (seen on 3.11 with a full disk).
    if manager is not None:
        manager.join(10)


def _run_parallel(
    segments: list[Segment], jobs: int, assembler: _Assembler, started: Callable[[], None]
) -> None:
    """Segments over ``jobs`` forked processes; the parent drains progress and assembles.

    Fork (not spawn, where the platform has it) so that workers start at once with the
    modules already imported; the pool forks all its workers at the first submit, before
    ``started`` may start a progress thread, so no thread is ever forked. Segments are
    submitted in order, at most ``WINDOW_PER_JOB * jobs`` ahead of the last one appended:
    the earliest segment not yet appended is always submitted, so the window always moves.
    """
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    queue = ctx.Queue()
    pool = ProcessPoolExecutor(jobs, ctx, initializer=init_worker, initargs=(queue,))
    order = {id(s): n for n, s in enumerate(segments)}
    upcoming = iter(segments)
    futures: dict[Future[int], Segment] = {}
    submitted = 0

    def top_up() -> None:
        nonlocal submitted
        while submitted - assembler.appended < WINDOW_PER_JOB * jobs:
            segment = next(upcoming, None)
            if segment is None:
                return
            futures[pool.submit(worker_segment, segment)] = segment
            submitted += 1

    try:
        top_up()
        started()
        while futures:
            done, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
            _drain(queue, assembler.progress)
            for fut in sorted(done, key=lambda f: order[id(futures[f])]):
                assembler.complete(futures.pop(fut), fut.result())
            top_up()
        _drain(queue, assembler.progress)
    except BaseException:
        _stop_workers(pool)
        raise
    pool.shutdown(wait=True)
    queue.close()


def _run_serial(segments: list[Segment], assembler: _Assembler) -> None:
    def report(message: tuple[int, int]) -> None:
        assembler.progress.advance(*message)

    for segment in segments:
        assembler.complete(segment, write_segment(segment, report))


def _refusal(path: Path) -> str | None:
    """Why the generator may not replace ``path`` (None: it is a regular file or missing).

    The rule of the kit's shared safe-output module (``reports.safeio``, which the generator
    may not import: dbgen and reports are independent layers), for a writer that only
    renames finished files into place: a symbolic link, a device, a FIFO, a socket or a
    directory is never replaced, ``--force`` or not."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    kinds = (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((f"it is {name}" for test, name in kinds if test(mode)), "not a regular file")


def _check_replaceable(path: Path) -> None:
    why = _refusal(path)
    if why is not None:
        raise DbgenError(f"refusing to replace {path}: {why}")


def _prepare_out_dir(out_dir: Path, files: list[OutputFile], force: bool) -> None:
    """Fail before any work: not a directory, a link, cannot create, existing files that are
    not regular files, existing files without ``force``, not writable."""
    if out_dir.is_symlink():
        raise DbgenError(f"output path {out_dir} is a symbolic link; give the directory itself")
    if out_dir.exists() and not out_dir.is_dir():
        raise DbgenError(f"output path {out_dir} exists and is not a directory")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DbgenError(f"cannot create output directory {out_dir}: {exc.strerror}") from exc
    for f in files:
        _check_replaceable(f.final)
    existing = [f.final for f in files if f.final.exists()]
    if existing and not force:
        more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
        raise DbgenError(f"{existing[0]}{more} already exist; use -f/--force to overwrite")
    probe = out_dir / f".dbbench-probe-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise DbgenError(f"output directory {out_dir} is not writable: {exc.strerror}") from exc


def _os_error(exc: OSError, out_dir: Path, spool: Path) -> DbgenError:
    if exc.errno == errno.ENOSPC:
        text = f"no space left on device in {_fuller(out_dir, spool)}"
    elif exc.errno == errno.EFBIG:
        text = f"file size limit reached in {out_dir} (treated as a full disk)"
    else:
        text = f"cannot write in {out_dir}: {exc.strerror or exc}"
    return DbgenError(f"{text}; unfinished files were removed")


def _fuller(out_dir: Path, spool: Path) -> Path:
    """Of the output directory and the segment spool, the one with less room left."""
    try:
        stats = {p: os.statvfs(p) for p in (out_dir, spool)}
    except OSError:
        return out_dir
    rooms = {p: st.f_bavail * st.f_frsize for p, st in stats.items()}
    return spool if rooms[spool] < rooms[out_dir] else out_dir


def _remove_temporaries(out_dir: Path, files: list[OutputFile], token: str) -> None:
    paths = {f.temp for f in files} | {Path(s.path) for f in files for s in f.segments}
    paths |= set(out_dir.glob(f".*.{token}.*"))
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def generate(options: GenOptions, progress: ProgressSink | None = None) -> Summary:
    """Write the files ``options`` asks for; returns what was written.

    Raises :class:`DbgenError` for bad input, a full disk or an unwritable directory; on
    any failure or Ctrl-C (re-raised as KeyboardInterrupt) every temporary is removed.
    """
    sink: ProgressSink = progress or NullSink()
    token = f"{os.getpid()}-{secrets.token_hex(3)}"
    jobs = resolve_jobs(options.jobs)
    spool = Path(make_spool(SPOOL_PREFIX, (WINDOW_PER_JOB * jobs + 2) * options.segment_bytes))
    try:  # the spool goes whatever happens, bad options included
        return _generate(options, sink, token, jobs, spool)
    finally:
        shutil.rmtree(spool, ignore_errors=True)


def _generate(
    options: GenOptions, sink: ProgressSink, token: str, jobs: int, spool: Path
) -> Summary:
    files = plan(options, token, spool)
    _prepare_out_dir(options.out_dir, files, options.force)
    # Biggest files first: their many segments spread over the processes while the small
    # files fill the gaps at the end.
    by_size = sorted(files, key=lambda f: -f.expected_rows * _row_bytes(f))
    segments = [s for f in by_size for s in f.segments]
    jobs = min(jobs, len(segments))
    assembler = _Assembler(files, sink)
    begin = time.perf_counter()

    def started() -> None:
        sink.start(sum(f.expected_rows for f in files), len(files))

    try:
        if jobs > 1:
            _run_parallel(segments, jobs, assembler, started)
        else:
            started()
            _run_serial(segments, assembler)
    except BaseException as exc:
        assembler.abort()
        _remove_temporaries(options.out_dir, files, token)
        if isinstance(exc, BrokenProcessPool):
            raise DbgenError("a generator process died (killed, or out of memory?)") from exc
        if isinstance(exc, OSError):
            raise _os_error(exc, options.out_dir, spool) from exc
        raise
    finally:
        sink.finish()
    seconds = time.perf_counter() - begin
    tables = len({f.table for f in files} - {"delete"})
    return Summary(tables, len(files), assembler.rows, assembler.nbytes, seconds)
