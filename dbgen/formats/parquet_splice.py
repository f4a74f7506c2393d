"""Joins Parquet files written in parallel into one file, without decoding a page.

Each generator process encodes its segment as a complete Parquet file. A Parquet file is
``PAR1``, the column chunks of its row groups, a footer (``FileMetaData`` in Thrift's
compact protocol), the footer's length and ``PAR1``. Joining files of one schema is
therefore: ``PAR1``, every file's row-group bytes in order (a kernel copy), and one footer
that lists every file's row groups with their byte offsets moved by where the bytes landed.

The footer is read and written with a small generic reader and writer of Thrift's compact
protocol (``Field``s in file order, unknown fields kept as they are); only the offsets
below, the row count and the row-group ordinals are changed. Files with a page index are
refused, since page locations inside the index would move too (the generator writes none).

Field ids are those of ``parquet.thrift`` (the Parquet format specification).
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from dbbench.dbgen.errors import DbgenError

MAGIC = b"PAR1"
_TAIL = 8  # footer length (little-endian u32) + MAGIC

# Compact-protocol type codes.
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12

# parquet.thrift field ids.
_FILE_NUM_ROWS, _FILE_ROW_GROUPS = 3, 4
_GROUP_COLUMNS, _GROUP_NUM_ROWS, _GROUP_FILE_OFFSET, _GROUP_ORDINAL = 1, 3, 5, 7
_CHUNK_FILE_OFFSET, _CHUNK_META = 2, 3
_CHUNK_PAGE_INDEX = (4, 6)  # offset_index_offset, column_index_offset
#: ColumnMetaData: data_page_offset, index_page_offset, dictionary_page_offset,
#: bloom_filter_offset: absolute positions in the file.
_META_OFFSETS = (9, 10, 11, 14)
_MAX_ORDINAL = 2**15 - 1  # RowGroup.ordinal is an i16; beyond, it is left out (optional)


@dataclass
class Field:
    fid: int
    ctype: int  # a bool field is always _TRUE, its value True or False
    value: Any  # int, bool, bytes, list[Field] (struct), or a container tuple


Struct = list[Field]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        out = shift = 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def struct(self) -> Struct:
        fields: Struct = []
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return fields
            delta, ctype = head >> 4, head & 0x0F
            fid = last + delta if delta else self.zigzag()
            if ctype in (_TRUE, _FALSE):  # a bool field: its value is its type code
                fields.append(Field(fid, _TRUE, ctype == _TRUE))
            else:
                fields.append(Field(fid, ctype, self.value(ctype)))
            last = fid

    def value(self, ctype: int) -> Any:
        if ctype in (_TRUE, _FALSE, _BYTE):  # a bool element of a container is one byte
            return self.byte()
        if ctype in (_I16, _I32, _I64):
            return self.zigzag()
        if ctype == _DOUBLE:
            self.pos += 8
            return self.data[self.pos - 8 : self.pos]
        if ctype == _BINARY:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n : self.pos]
        if ctype in (_LIST, _SET):
            head = self.byte()
            size, etype = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return (etype, [self.value(etype) for _ in range(size)])
        if ctype == _MAP:
            size = self.varint()
            if size == 0:
                return (0, 0, [])
            kv = self.byte()
            kt, vt = kv >> 4, kv & 0x0F
            return (kt, vt, [(self.value(kt), self.value(vt)) for _ in range(size)])
        if ctype == _STRUCT:
            return self.struct()
        raise DbgenError(f"Parquet footer: unknown Thrift type {ctype}")


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, n: int) -> None:
        while n > 0x7F:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def zigzag(self, n: int) -> None:
        self.varint((n << 1) ^ (n >> 63))

    def struct(self, fields: Struct) -> None:
        last = 0
        for f in fields:
            self.field(f, last)
            last = f.fid
        self.out.append(0)

    def field_head(self, fid: int, ctype: int, last: int) -> None:
        if 0 < fid - last <= 15:
            self.out.append(((fid - last) << 4) | ctype)
        else:
            self.out.append(ctype)
            self.zigzag(fid)

    def field(self, f: Field, last: int) -> None:
        """One field of a struct whose previous field id was ``last``."""
        if f.ctype in (_TRUE, _FALSE):  # a bool field's value is its type code
            self.field_head(f.fid, _TRUE if f.value else _FALSE, last)
        else:
            self.field_head(f.fid, f.ctype, last)
            self.value(f.ctype, f.value)

    def list_head(self, etype: int, size: int) -> None:
        if size < 15:
            self.out.append((size << 4) | etype)
        else:
            self.out.append(0xF0 | etype)
            self.varint(size)

    def value(self, ctype: int, value: Any) -> None:
        if ctype in (_TRUE, _FALSE, _BYTE):
            self.out.append(value & 0xFF)
        elif ctype in (_I16, _I32, _I64):
            self.zigzag(value)
        elif ctype == _DOUBLE:
            self.out += value
        elif ctype == _BINARY:
            self.varint(len(value))
            self.out += value
        elif ctype in (_LIST, _SET):
            etype, items = value
            self.list_head(etype, len(items))
            for item in items:
                self.value(etype, item)
        elif ctype == _MAP:
            kt, vt, pairs = value
            self.varint(len(pairs))
            if pairs:
                self.out.append((kt << 4) | vt)
                for k, v in pairs:
                    self.value(kt, k)
                    self.value(vt, v)
        elif ctype == _STRUCT:
            self.struct(value)
        else:
            raise DbgenError(f"Parquet footer: unknown Thrift type {ctype}")


def _field(fields: Struct, fid: int) -> Field | None:
    return next((f for f in fields if f.fid == fid), None)


def read_footer(f: BinaryIO) -> tuple[Struct, int]:
    """A Parquet file's ``FileMetaData`` and the offset where it starts."""
    size = f.seek(0, os.SEEK_END)
    if size < len(MAGIC) + _TAIL:
        raise DbgenError("Parquet segment is too short to be a Parquet file")
    f.seek(size - _TAIL)
    tail = f.read(_TAIL)
    (length,) = struct.unpack("<I", tail[:4])
    if tail[4:] != MAGIC or length > size - len(MAGIC) - _TAIL:
        raise DbgenError("Parquet segment has no valid footer")
    start = size - _TAIL - length
    f.seek(start)
    return _Reader(f.read(length)).struct(), start


def _moved(group: Struct, by: int, ordinal: int) -> Struct:
    """A RowGroup whose column chunks start ``by`` bytes later, renumbered ``ordinal``."""
    out: Struct = []
    for f in group:
        if f.fid == _GROUP_FILE_OFFSET:
            f = Field(f.fid, f.ctype, f.value + by)
        elif f.fid == _GROUP_ORDINAL:
            if ordinal > _MAX_ORDINAL:
                continue
            f = Field(f.fid, f.ctype, ordinal)
        elif f.fid == _GROUP_COLUMNS:
            etype, chunks = f.value
            f = Field(f.fid, f.ctype, (etype, [_moved_chunk(c, by) for c in chunks]))
        out.append(f)
    return out


def _moved_chunk(chunk: Struct, by: int) -> Struct:
    out: Struct = []
    for f in chunk:
        if f.fid in _CHUNK_PAGE_INDEX:
            raise DbgenError("Parquet segment has a page index; segments cannot be joined")
        if f.fid == _CHUNK_FILE_OFFSET:
            f = Field(f.fid, f.ctype, f.value + by)
        elif f.fid == _CHUNK_META:
            f = Field(f.fid, f.ctype, [_moved_meta(m, by) for m in f.value])
        out.append(f)
    return out


def _moved_meta(f: Field, by: int) -> Field:
    return Field(f.fid, f.ctype, f.value + by) if f.fid in _META_OFFSETS else f


_NO_COPY_RANGE = (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP)


def _copy_range(src: BinaryIO, dst: BinaryIO, start: int, count: int) -> None:
    """``count`` bytes of ``src`` from ``start`` appended to the unbuffered ``dst``, inside
    the kernel where it can (no copy through Python)."""
    offset = start
    try:
        while count > 0:
            n = os.copy_file_range(src.fileno(), dst.fileno(), count, offset_src=offset)
            if n == 0:
                break
            offset += n
            count -= n
    except OSError as exc:
        if exc.errno not in _NO_COPY_RANGE:
            raise
        src.seek(offset)  # no copy_file_range here: copy through a buffer
        while count > 0:
            block = src.read(min(count, 1 << 20))
            if not block:
                break
            dst.write(block)
            count -= len(block)
    if count:
        raise DbgenError("Parquet segment ended early while it was being joined")


class ParquetSplicer:
    """Builds one Parquet file from complete Parquet segments appended in order."""

    def __init__(self, path: str | Path) -> None:
        self._out = open(path, "wb", buffering=0)  # noqa: SIM115 - closed by close()/abort()
        self._out.write(MAGIC)
        self._head: Struct | None = None  # the first segment's footer: schema, metadata
        self._groups: list[bytes] = []  # every row group, moved, as compact-protocol bytes
        self.rows = 0

    def append(self, segment: str | Path) -> None:
        """Append one segment's row groups (its schema must be the first segment's)."""
        with open(segment, "rb") as src:
            meta, start = read_footer(src)
            if self._head is None:
                self._head = meta
            elif _field(meta, 2) != _field(self._head, 2):
                raise DbgenError("Parquet segments of one file have different schemas")
            by = self._out.tell() - len(MAGIC)
            _copy_range(src, self._out, len(MAGIC), start - len(MAGIC))
        rows_field = _field(meta, _FILE_NUM_ROWS)
        groups_field = _field(meta, _FILE_ROW_GROUPS)
        if rows_field is None or groups_field is None:
            raise DbgenError("Parquet segment footer has no row count or row groups")
        for group in groups_field.value[1]:
            rows = _field(group, _GROUP_NUM_ROWS)
            if rows is not None and rows.value == 0:
                continue  # an empty segment's empty row group
            writer = _Writer()
            writer.struct(_moved(group, by, len(self._groups)))
            self._groups.append(bytes(writer.out))
        self.rows += rows_field.value

    def close(self) -> None:
        """Write the joined footer and close the file."""
        if self._head is None:
            self.abort()
            raise DbgenError("a Parquet file needs at least one segment")
        writer = _Writer()
        last = 0
        for f in self._head:  # the first footer, with the total rows and every row group
            if f.fid == _FILE_NUM_ROWS:
                f = Field(f.fid, f.ctype, self.rows)
            if f.fid == _FILE_ROW_GROUPS:
                writer.field_head(f.fid, _LIST, last)
                writer.list_head(_STRUCT, len(self._groups))
                for group in self._groups:
                    writer.out += group
            else:
                writer.field(f, last)
            last = f.fid
        writer.out.append(0)
        self._out.write(writer.out)
        self._out.write(struct.pack("<I", len(writer.out)))
        self._out.write(MAGIC)
        self._out.close()

    def abort(self) -> None:
        self._out.close()
