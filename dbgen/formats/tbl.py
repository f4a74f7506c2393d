"""dbgen's flat-file format: every field followed by ``|``, rows ended by LF (tpch.md §7).

Formatting is Arrow compute end to end: each column is cast to strings (integers plain,
decimal128(15,2) with two decimals and a sign, date32 as ``YYYY-MM-DD``), and one
element-wise join builds all rows of a batch; the joined array's data buffer *is* the file
content. ``l_quantity`` is a decimal in the schema but dbgen prints it as an integer.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from dbgen.errors import DbgenError
from dbgen.schema import TABLES

_INTEGER_DECIMALS = frozenset({"l_quantity"})


def _as_text(column: pa.Array, name: str) -> pa.Array:
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column
    if pa.types.is_decimal(column.type) and name in _INTEGER_DECIMALS:
        column = pc.cast(column, pa.int64())
    return pc.cast(column, pa.string())


def format_tbl(batch: pa.RecordBatch, table: str, *, trailing_separator: bool = True) -> bytes:
    """The exact bytes dbgen writes for these rows of ``table``."""
    if table not in TABLES:
        raise DbgenError(f"unknown table {table!r}")
    names = TABLES[table].column_names
    if batch.schema.names != names:
        raise DbgenError(f"batch columns {batch.schema.names} do not match table {table}")
    if batch.num_rows == 0:
        return b""
    cols = [_as_text(batch.column(i), n) for i, n in enumerate(names)]
    if trailing_separator:  # "a|b|c|" + LF: the LF is one more joined field
        newline = pa.array(["\n"], pa.string()).take(np.zeros(batch.num_rows, np.int64))
        rows = pc.binary_join_element_wise(*cols, newline, "|")
    else:
        rows = pc.binary_join_element_wise(*cols, "|")
        rows = pc.binary_join_element_wise(rows, "\n", "")
    return _data_bytes(rows)


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


def format_delete_keys(keys: npt.ArrayLike) -> bytes:
    """A delete file: one ``<orderkey>|`` line per key."""
    arr = pa.array(np.asarray(keys, dtype=np.int64))
    if len(arr) == 0:
        return b""
    text = pc.binary_join_element_wise(pc.cast(arr, pa.string()), pa.scalar("|\n"), "")
    return _data_bytes(text)
