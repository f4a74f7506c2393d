"""dbgen's flat-file format: every field followed by ``|``, rows ended by LF (tpch.md §7).

Formatting stays in Arrow's C++: columns with few distinct renderings (dates, discounts,
taxes, quantities) become strings through small lookup tables, the rest through Arrow's
casts inside its CSV writer (integers plain, decimal128(15,2) with two decimals and a sign).
``l_quantity`` is a decimal in the schema but dbgen prints it as an integer.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from dbbench.dbgen import arrow
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.schema import TABLES

_INTEGER_DECIMALS = frozenset({"l_quantity"})
_CSV_OPTIONS = pa_csv.WriteOptions(
    include_header=False, delimiter="|", quoting_style="none", batch_size=1 << 16
)


_SMALL = 4096  # the smallest lookup table
_LARGEST = 1 << 18  # the largest: key ranges above it are cast (SF1 part keys fit)
_DAY0 = 8035  # 1992-01-01 in days since 1970-01-01
_DAYS = 2557  # dbgen's date table: 1992-01-01 .. 1998-12-31


@lru_cache(maxsize=1)
def _date_table() -> pa.Array:
    first = dt.date(1992, 1, 1)
    return arrow.strings([(first + dt.timedelta(days=i)).isoformat() for i in range(_DAYS)])


@lru_cache(maxsize=16)
def _lookup(size: int, cents: bool) -> pa.Array:
    """Renderings of 0 .. size-1 as integers (Arrow's own cast: ``str(i)``) or as cents
    (``0.04``, ``12.30``), built in Arrow once per process."""
    ints = pc.cast(arrow.ints(np.arange(size, dtype=np.int64)), pa.string())
    if not cents:
        return ints
    whole = ints.take(arrow.ints(np.arange(size, dtype=np.int64) // 100))
    hundredths = _two_digits().take(arrow.ints(np.arange(size, dtype=np.int64) % 100))
    return pc.binary_join_element_wise(whole, hundredths, arrow.scalar("."))


@lru_cache(maxsize=1)
def _two_digits() -> pa.Array:
    return arrow.strings([f"{i:02d}" for i in range(100)])


def _by_lookup(values: npt.NDArray[np.int64], cents: bool) -> pa.Array | None:
    """``values`` rendered through a lookup table, or None when their range is too wide.

    Arrow casts a number to text one value at a time through a string builder; a take
    from a table of the renderings is about 40 % cheaper, and most of dbgen's numbers
    (line numbers, quantities, sizes, nation keys, prices, SF1's part and supplier keys)
    fall in a small range."""
    if not len(values):
        return None
    low, high = int(values.min()), int(values.max())
    if low < 0 or high >= _LARGEST:
        return None
    size = max(_SMALL, 1 << high.bit_length())
    return _lookup(size, cents).take(arrow.ints(values))


def _low_words(column: pa.Array) -> npt.NDArray[np.int64]:
    """A decimal128 column's unscaled values (dbgen's fit in the low 64 bits)."""
    words = np.frombuffer(column.buffers()[1], dtype=np.int64)
    return words[2 * column.offset : 2 * (column.offset + len(column)) : 2]


def _text(column: pa.Array, name: str) -> pa.Array:
    """A column rendered as strings; lookup tables where the value range is small (dates,
    discounts, quantities, small keys), because Arrow's generic casts are the cost of this
    format."""
    kind = column.type
    if column.null_count:
        return column
    if pa.types.is_date32(kind):
        days = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset :][: len(column)]
        idx = days.astype(np.int64) - _DAY0
        if len(idx) and idx.min() >= 0 and idx.max() < _DAYS:
            return _date_table().take(arrow.ints(idx))
    elif pa.types.is_decimal(kind):
        values = _low_words(column)
        as_int = name in _INTEGER_DECIMALS
        if as_int:
            values = values // 100
        text = _by_lookup(values, not as_int)
        if text is not None:
            return text
        if as_int:
            return pc.cast(arrow.ints(values), pa.string())
    elif pa.types.is_signed_integer(kind):
        dtype = np.dtype(f"<i{kind.bit_width // 8}")
        ints = np.frombuffer(column.buffers()[1], dtype=dtype)[column.offset :][: len(column)]
        text = _by_lookup(ints.astype(np.int64, copy=False), False)
        if text is not None:
            return text
    return column


def write_tbl(
    batch: pa.RecordBatch, table: str, sink: pa.NativeFile, *, trailing_separator: bool = True
) -> None:
    """Write the exact bytes dbgen writes for these rows of ``table`` to ``sink``.

    Arrow's CSV writer does the work (in C++): ``|`` as delimiter, no quoting (no generated
    value contains ``|`` or a quote), and for the trailing separator one extra empty column.
    Its number, decimal and date renderings are dbgen's (``-0.05``, ``1996-03-13``). Written
    straight to the file: no buffer of the whole batch, no copy into Python bytes.
    """
    if table not in TABLES:
        raise DbgenError(f"unknown table {table!r}")
    names = TABLES[table].column_names
    if batch.schema.names != names:
        raise DbgenError(f"batch columns {batch.schema.names} do not match table {table}")
    if batch.num_rows == 0:
        return
    cols = [_text(c, n) for c, n in zip(batch.columns, names, strict=True)]
    if trailing_separator:
        cols.append(pa.nulls(batch.num_rows, pa.string()))
    pa_csv.write_csv(
        pa.RecordBatch.from_arrays(cols, names=[f"c{i}" for i in range(len(cols))]),
        sink,
        _CSV_OPTIONS,
    )


def format_tbl(batch: pa.RecordBatch, table: str, *, trailing_separator: bool = True) -> bytes:
    """The exact bytes dbgen writes for these rows of ``table`` (see :func:`write_tbl`)."""
    sink = pa.BufferOutputStream()
    write_tbl(batch, table, sink, trailing_separator=trailing_separator)
    out: bytes = sink.getvalue().to_pybytes()
    return out


def _data_bytes(rows: pa.Array) -> bytes:
    """The concatenated values of a string array (its data buffer between the offsets)."""
    if isinstance(rows, pa.ChunkedArray):
        return b"".join(_data_bytes(c) for c in rows.chunks)
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32)[
        rows.offset : rows.offset + len(rows) + 1
    ]
    data = rows.buffers()[2]
    if data is None:
        return b""
    out: bytes = data[int(offsets[0]) : int(offsets[-1])].to_pybytes()
    return out


def format_delete_keys(keys: npt.ArrayLike | pa.Array) -> bytes:
    """A delete file: one ``<orderkey>|`` line per key."""
    arr = arrow.ints(keys)
    if len(arr) == 0:
        return b""
    text = pc.binary_join_element_wise(
        pc.cast(arr, pa.string()), arrow.scalar("|\n"), arrow.scalar("")
    )
    return _data_bytes(text)
