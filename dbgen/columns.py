"""Column builders shared by the table generators: numpy in, Arrow arrays out.

Money stays integer cents until it becomes a decimal128 (built straight from the cents, no
float on the way); dates are day indexes from 1992-01-01 until they become date32; strings
are assembled as byte matrices or pool slices and handed to Arrow as buffers.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from dbbench.dbgen import arrow, dists
from dbbench.dbgen.rng import U64, P, unif
from dbbench.dbgen.textpool import POOL_SIZE, get_pool, pool_words

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]

EPOCH_1992 = 8035  # 1992-01-01 in days since 1970-01-01
CURRENT_DATE_INDEX = 1263  # 1995-06-17, dbgen's CURRENTDATE
_DEC = pa.decimal128(15, 2)
_ALPHA = np.frombuffer(
    b"0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,", np.uint8
)


def money(cents: I64) -> pa.Array:
    """decimal128(15,2) from integer cents, built from the 16-byte two's-complement words."""
    cents = np.ascontiguousarray(cents, dtype=np.int64)
    words = np.empty((len(cents), 2), dtype=np.int64)
    words[:, 0] = cents
    words[:, 1] = cents >> 63
    return pa.Array.from_buffers(_DEC, len(cents), [None, pa.py_buffer(words)])


def dates(index: I64) -> pa.Array:
    """date32 from dbgen day indexes (0 = 1992-01-01)."""
    days = (np.asarray(index, dtype=np.int64) + EPOCH_1992).astype(np.int32)
    return pa.Array.from_buffers(pa.date32(), len(days), [None, pa.py_buffer(days)])


def int64(values: I64) -> pa.Array:
    return arrow.ints(values)


def int32(values: I64) -> pa.Array:
    return arrow.ints(values, np.int32)


def strings_from(data: U8, lengths: I64) -> pa.Array:
    """A string array from concatenated bytes and per-row lengths."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(
        len(lengths), pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))
    )


def fixed_strings(matrix: U8) -> pa.Array:
    """A string array whose rows are the rows of a (n, width) byte matrix."""
    n, width = matrix.shape
    return strings_from(matrix.reshape(-1), np.full(n, width, dtype=np.int64))


def digits(values: I64, width: int) -> U8:
    """(n, width) ASCII matrix of zero-padded decimals (values must fit in ``width``)."""
    v = np.asarray(values, dtype=np.int64)
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return ((v[:, None] // powers) % 10 + 48).astype(np.uint8)


def padded(prefix: str, values: I64, width: int) -> pa.Array:
    """``prefix`` + value zero-padded to at least ``width`` digits (C ``%0<width>d``)."""
    v = np.asarray(values, dtype=np.int64)
    if len(v) == 0 or int(v.max()) < 10**width:
        head = np.frombuffer(prefix.encode(), np.uint8)
        mat = np.empty((len(v), len(head) + width), dtype=np.uint8)
        mat[:, : len(head)] = head
        mat[:, len(head) :] = digits(v, width)
        return fixed_strings(mat)
    text = pc.utf8_lpad(pc.cast(arrow.ints(v), pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise(arrow.scalar(prefix), text, arrow.scalar(""))


def picks(dist: dists.Dist, raw: U64) -> pa.Array:
    """The values chosen by one weighted pick per raw draw."""
    idx = dist.pick(unif(raw, 1, dist.total))
    return arrow.strings(dist.values).take(arrow.ints(idx))


def text_bounds(avg: int) -> tuple[int, int]:
    """dbgen's TEXT(avg) length range: trunc(0.4·avg) .. trunc(1.6·avg)."""
    return int(avg * 0.4), int(avg * 1.6)


def text(raw_offset: U64, raw_length: U64, avg: int) -> pa.Array:
    """TEXT(avg) comments: pool slices from an offset draw and a length draw per row."""
    lo, hi = text_bounds(avg)
    off = unif(raw_offset, 0, POOL_SIZE - hi)
    ln = unif(raw_length, lo, hi)
    return pool_slices(off, ln)


def pool_slices(off: I64, ln: I64) -> pa.Array:
    """Strings ``pool[off : off+ln]`` without copying bytes in Python.

    The rows become Arrow string *views* into the memory-mapped pool (16 bytes each: length,
    then either the bytes inline when at most 12, or a 4-byte prefix and the offset), and
    Arrow's cast to a plain string array does the copying in C++. That is several times
    faster than gathering every byte with numpy.
    """
    n = len(ln)
    pool = get_pool()
    off = np.asarray(off, dtype=np.int64)
    ln = np.asarray(ln, dtype=np.int64)
    first8, next4 = pool_words()
    views = np.empty((n, 4), dtype=np.int32)  # length, prefix/inline, buffer, offset
    views[:, 0] = ln
    views[:, 1] = next4[off].view(np.int32)  # a long value's prefix: its first 4 bytes
    views[:, 2] = 0  # long values: buffer 0 (the pool) at their offset
    views[:, 3] = off
    short = ln <= 12  # inline: all 12 bytes gathered, for these rows only (few of them)
    rows = np.flatnonzero(short)
    if len(rows):
        views[rows, 1:3] = first8[off[rows]].view(np.int32).reshape(-1, 2)
        views[rows, 3] = next4[np.minimum(off[rows] + 8, len(next4) - 1)].view(np.int32)
        _zero_tail(views, ln, short)
    arr = pa.Array.from_buffers(
        pa.string_view(), n, [None, pa.py_buffer(views), pa.py_buffer(pool)]
    )
    return pc.cast(arr, pa.string())


def _zero_tail(views: npt.NDArray[np.int32], ln: I64, short: npt.NDArray[np.bool_]) -> None:
    """Inline values (at most 12 bytes) must be zero-padded after their length."""
    as_bytes = views.view(np.uint8)  # (n, 16)
    rows = np.flatnonzero(short)
    inline = as_bytes[rows, 4:]
    inline[np.arange(12)[None, :] >= ln[rows, None]] = 0
    as_bytes[rows, 4:] = inline


def address(raw: U64) -> pa.Array:
    """a_rnd(10, 40): a length draw, then one draw per 5 characters (overflowed range)."""
    n = raw.shape[0]
    length = unif(raw[:, 0], 10, 40)
    words = unif(raw[:, 1:9], 0, P)  # (n, 8) values in (-2^31, 0]
    shifts = np.arange(5, dtype=np.int64) * 6
    chars = (words[:, :, None] >> shifts[None, None, :]) & 63  # arithmetic shift
    mat = _ALPHA[chars.reshape(n, 40)]
    keep = np.arange(40)[None, :] < length[:, None]
    return strings_from(mat[keep], length)


def phone(nation: I64, raw: U64) -> pa.Array:
    """``CC-aaa-bbb-cccc`` with CC = 10 + nation mod 90 and three draws."""
    n = len(nation)
    mat = np.empty((n, 15), dtype=np.uint8)
    mat[:, 0:2] = digits(10 + np.asarray(nation) % 90, 2)
    mat[:, 3:6] = digits(unif(raw[:, 0], 100, 999), 3)
    mat[:, 7:10] = digits(unif(raw[:, 1], 100, 999), 3)
    mat[:, 11:15] = digits(unif(raw[:, 2], 1000, 9999), 4)
    mat[:, [2, 6, 10]] = ord("-")
    return fixed_strings(mat)
