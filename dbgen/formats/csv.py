"""CSV sink: a header row, commas, RFC 4180 quoting, values typed as the schema says.

Why not the .tbl text with commas: comments contain commas, so CSV needs quoting, and the
CSV consumers (spreadsheets, ``COPY ... CSV HEADER``, pandas) expect a header row and
decimals written with their scale (``17.00``), which Arrow's CSV writer gives for free and
vectorised. Arrow quotes every string value (its ``needed`` style), which every CSV reader
accepts; numbers and dates are written bare.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.csv as pacsv


def write_options(*, header: bool) -> pacsv.WriteOptions:
    """The one set of CSV options used everywhere, so that segments concatenate cleanly."""
    return pacsv.WriteOptions(
        include_header=header, delimiter=",", quoting_style="needed", batch_size=65536
    )


def write_csv(batch: pa.RecordBatch, sink: pa.NativeFile, *, header: bool) -> None:
    """One batch as CSV (LF line ends) to ``sink``; ``header`` only for a file's first batch."""
    pacsv.write_csv(batch, sink, write_options=write_options(header=header))


def format_csv(batch: pa.RecordBatch, *, header: bool) -> bytes:
    """One batch as CSV bytes (see :func:`write_csv`)."""
    sink = pa.BufferOutputStream()
    write_csv(batch, sink, header=header)
    return bytes(sink.getvalue())


def header_line(schema: pa.Schema) -> bytes:
    """The header row alone: what an empty table's file holds."""
    empty = pa.RecordBatch.from_pylist([], schema=schema)
    return format_csv(empty, header=True)


def read_options(schema: pa.Schema) -> tuple[pacsv.ReadOptions, pacsv.ConvertOptions]:
    """Options that read a file written here back into exactly ``schema`` (tests, loaders)."""
    read = pacsv.ReadOptions(column_names=schema.names, skip_rows=1)
    convert = pacsv.ConvertOptions(
        column_types={f.name: f.type for f in schema},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    return read, convert
