"""One segment: a chunk of a table (or an update set) generated into one temporary file.

This is the code that runs inside the worker processes of :mod:`dbgen.writer`; it is kept
apart so that what a worker does (generate, encode, write, report) reads on its own.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pyarrow as pa

from dbbench.dbgen import api, arrow
from dbbench.dbgen.formats import csv as csv_format
from dbbench.dbgen.formats import tbl as tbl_format
from dbbench.dbgen.formats.parquet import ParquetTableWriter
from dbbench.dbgen.memory import reuse_freed_memory
from dbbench.dbgen.schema import TABLES

Encoding = Literal["tbl", "csv", "parquet"]

#: The schema of a delete file in CSV/Parquet: one order key per row.
DELETE_SCHEMA = pa.schema([pa.field("orderkey", pa.int64(), nullable=False)])


@dataclass(frozen=True)
class Source:
    """Where a segment's rows come from: a chunk of a table, an update set or delete keys."""

    kind: Literal["table", "update", "delete"]
    table: str
    sf: float
    part: int = 1
    parts: int = 1
    update_set: int = 0


@dataclass(frozen=True)
class Segment:
    """One unit of work: generate ``source`` into ``path`` encoded as ``encoding``."""

    file_index: int
    seq: int
    source: Source
    path: str
    encoding: Encoding
    header: bool
    trailing_separator: bool


_REPORT: Any = None  # the progress queue, set in each worker process by init_worker


def init_worker(queue: Any) -> None:
    """Worker set-up: Ctrl-C belongs to the parent, which stops the workers itself."""
    global _REPORT
    _REPORT = queue
    reuse_freed_memory()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def worker_segment(segment: Segment) -> int:
    """Entry point in a worker process: write one segment, report progress on the queue."""
    queue = _REPORT
    return write_segment(segment, None if queue is None else queue.put)


def source_batches(source: Source) -> Iterator[pa.RecordBatch]:
    """The rows of ``source`` as Arrow batches, straight from the generator's API."""
    if source.kind == "table":
        yield from api.table_batches(source.table, source.sf, part=source.part, parts=source.parts)
    elif source.kind == "update":
        yield from api.update_batches(source.table, source.sf, source.update_set)
    else:
        keys = arrow.ints(api.delete_keys(source.sf, source.update_set))
        yield pa.RecordBatch.from_arrays([keys], schema=DELETE_SCHEMA)


def schema_of(source: Source) -> pa.Schema:
    """The Arrow schema of what ``source`` yields (defined once, in dbgen.schema)."""
    return DELETE_SCHEMA if source.kind == "delete" else TABLES[source.table].arrow_schema


def _write_text(segment: Segment, batch: pa.RecordBatch, first: bool, sink: pa.NativeFile) -> None:
    source = segment.source
    if segment.encoding == "csv":
        csv_format.write_csv(batch, sink, header=segment.header and first)
    elif source.kind == "delete":
        data = tbl_format.format_delete_keys(batch.column(0))
        sink.write(data if segment.trailing_separator else data.replace(b"|\n", b"\n"))
    else:
        tbl_format.write_tbl(
            batch, source.table, sink, trailing_separator=segment.trailing_separator
        )


def write_segment(segment: Segment, report: Callable[[tuple[int, int]], None] | None) -> int:
    """Generate one segment into its file; returns its row count. Runs in any process."""
    schema = schema_of(segment.source)
    rows = 0
    if segment.encoding in ("tbl", "csv"):
        with pa.OSFile(segment.path, "wb") as raw, pa.BufferedOutputStream(raw, 1 << 20) as f:
            first = True
            for batch in source_batches(segment.source):
                before = f.tell()
                _write_text(segment, batch, first, f)
                first = False
                rows += batch.num_rows
                if report is not None:
                    report((batch.num_rows, f.tell() - before))
            if first and segment.encoding == "csv" and segment.header:
                f.write(csv_format.header_line(schema))
        return rows
    # Parquet: a complete file, joined with the file's other segments by the parent.
    writer = ParquetTableWriter(segment.path, schema)
    try:
        for batch in source_batches(segment.source):
            writer.write(batch)
            if report is not None:
                report((batch.num_rows, 0))
    except BaseException:
        writer.abort()
        raise
    writer.close()
    if report is not None:
        report((0, os.path.getsize(segment.path)))
    return writer.rows
