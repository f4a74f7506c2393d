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


_SMALL = 4096  # integer ranges rendered through a lookup table rather than a cast
_DAY0 = 8035  # 1992-01-01 in days since 1970-01-01
_DAYS = 2557  # dbgen's date table: 1992-01-01 .. 1998-12-31


@lru_cache(maxsize=1)
def _date_table() -> pa.Array:
    first = dt.date(1992, 1, 1)
    return arrow.strings([(first + dt.timedelta(days=i)).isoformat() for i in range(_DAYS)])


@lru_cache(maxsize=64)
def _lookup(top: int, cents: bool) -> pa.Array:
    """Renderings of 0..top as integers or as cents (``0.04``)."""
    if cents:
        return arrow.strings([f"{i // 100}.{i % 100:02d}" for i in range(top + 1)])
    return arrow.strings([str(i) for i in range(top + 1)])


def _low_words(column: pa.Array) -> npt.NDArray[np.int64]:
    """A decimal128 column's unscaled values (dbgen's fit in the low 64 bits)."""
    words = np.frombuffer(column.buffers()[1], dtype=np.int64)
    return words[2 * column.offset : 2 * (column.offset + len(column)) : 2]


def _text(column: pa.Array, name: str) -> pa.Array:
    """A column rendered as strings; lookup tables where the value range is small (dates,
    discounts, quantities), because Arrow's generic casts are the cost of this format."""
    kind = column.type
    if pa.types.is_date32(kind):
        days = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset :][: len(column)]
        idx = days.astype(np.int64) - _DAY0
        if len(idx) and idx.min() >= 0 and idx.max() < _DAYS:
            return _date_table().take(arrow.ints(idx))
    elif pa.types.is_decimal(kind) and column.null_count == 0:
        values = _low_words(column)
        as_int = name in _INTEGER_DECIMALS
        if as_int:
            values = values // 100
        if len(values) and values.min() >= 0 and values.max() < _SMALL:
            return _lookup(_SMALL - 1, not as_int).take(arrow.ints(values))
        if as_int:
            return pc.cast(arrow.ints(values), pa.string())
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
