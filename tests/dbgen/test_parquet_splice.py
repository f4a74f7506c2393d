"""Parquet segments joined under one footer: the same values, valid offsets, readable by
pyarrow and DuckDB, and the footer codec writes back exactly what it read."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.formats import parquet_splice as ps
from dbbench.dbgen.formats.parquet import ParquetTableWriter
from dbbench.dbgen.schema import TABLES

SF = 0.01


def _segments(tmp_path: Path, table: str, parts: int) -> list[Path]:
    paths = []
    for k in range(1, parts + 1):
        path = tmp_path / f"{table}.{k}.seg"
        writer = ParquetTableWriter(path, TABLES[table].arrow_schema)
        for batch in api.table_batches(table, SF, part=k, parts=parts):
            writer.write(batch)
        writer.close()
        paths.append(path)
    return paths


def _joined(tmp_path: Path, segments: list[Path], name: str = "joined.parquet") -> Path:
    out = tmp_path / name
    splicer = ps.ParquetSplicer(out)
    for seg in segments:
        splicer.append(seg)
    splicer.close()
    return out


def test_footer_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    (seg,) = _segments(tmp_path, "lineitem", 1)
    with open(seg, "rb") as f:
        meta, start = ps.read_footer(f)
        f.seek(start)
        footer = f.read()[: -len(ps.MAGIC) - 4]
    writer = ps._Writer()
    writer.struct(meta)
    assert bytes(writer.out) == footer


def test_compact_protocol_round_trip_of_every_type() -> None:
    F = ps.Field
    inner = [F(1, ps._I32, -7), F(2, ps._TRUE, False), F(3, ps._BINARY, b"x" * 200)]
    fields = [
        F(1, ps._I64, -(2**40)),
        F(2, ps._TRUE, True),
        F(20, ps._I16, 300),  # a field id more than 15 after the previous one
        F(21, ps._DOUBLE, b"\x00" * 7 + b"\x40"),
        F(22, ps._LIST, (ps._STRUCT, [inner] * 20)),  # 20 elements: the long list header
        F(23, ps._LIST, (ps._TRUE, [1, 2, 1])),  # bools inside a list are one byte each
        F(24, ps._MAP, (ps._BINARY, ps._I32, [(b"k", 5), (b"l", -1)])),
        F(25, ps._MAP, (0, 0, [])),
        F(26, ps._BYTE, 0xFE),
        F(27, ps._STRUCT, []),
    ]
    writer = ps._Writer()
    writer.struct(fields)
    assert ps._Reader(bytes(writer.out)).struct() == fields


def test_joined_file_has_every_row_in_order_and_valid_offsets(tmp_path: Path) -> None:
    segments = _segments(tmp_path, "lineitem", 3)
    joined = _joined(tmp_path, segments)
    want = pa.Table.from_batches(
        list(api.table_batches("lineitem", SF)), schema=TABLES["lineitem"].arrow_schema
    )
    got = pq.read_table(joined)
    assert got.num_rows == want.num_rows
    for name in want.column_names:
        if not got[name].equals(want[name]):
            first = next(
                i
                for i, (a, b) in enumerate(
                    zip(got[name].to_pylist(), want[name].to_pylist(), strict=True)
                )
                if a != b
            )
            pytest.fail(f"column {name} differs first at row {first}")
    meta = pq.ParquetFile(joined).metadata
    seg_groups = [pq.ParquetFile(s).metadata.num_row_groups for s in segments]
    assert meta.num_row_groups == sum(seg_groups) and meta.num_rows == want.num_rows
    starts = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        starts += [
            group.column(c).dictionary_page_offset or group.column(c).data_page_offset
            for c in range(group.num_columns)
        ]
        # Every row group is readable on its own: its offsets point at its pages.
        assert pq.ParquetFile(joined).read_row_group(g).num_rows == group.num_rows
    assert starts == sorted(starts) and starts[0] == len(ps.MAGIC)
    assert joined.stat().st_size < sum(s.stat().st_size for s in segments)
    sql = "SELECT count(*), sum(l_extendedprice), min(l_comment), max(l_shipdate) FROM '{}'"
    assert (
        duckdb.sql(sql.format(joined)).fetchall()
        == duckdb.sql(
            sql.replace("'{}'", "read_parquet({})").format([str(s) for s in segments])
        ).fetchall()
    )


def test_a_moved_row_group_has_every_offset_moved_and_its_new_ordinal() -> None:
    """pyarrow writes no RowGroup.ordinal, other writers do: it is renumbered, and left out
    (it is optional) where an i16 cannot hold it."""
    F = ps.Field
    meta = [F(1, ps._I32, 1), F(9, ps._I64, 100), F(10, ps._I64, 90), F(11, ps._I64, 80)]
    meta += [F(14, ps._I64, 70), F(5, ps._I64, 3)]  # num_values: not an offset
    chunk = [F(2, ps._I64, 80), F(3, ps._STRUCT, meta)]
    group = [F(1, ps._LIST, (ps._STRUCT, [chunk])), F(3, ps._I64, 3)]
    group += [F(5, ps._I64, 80), F(7, ps._I16, 5)]
    moved = ps._moved(group, 1000, 2)
    (moved_chunk,) = moved[0].value[1]
    assert moved_chunk[0].value == 1080
    assert [f.value for f in moved_chunk[1].value] == [1, 1100, 1090, 1080, 1070, 3]
    assert (moved[2].value, moved[3].value) == (1080, 2)
    assert [f.fid for f in ps._moved(group, 0, 40_000)] == [1, 3, 5]
    with pytest.raises(DbgenError, match="page index"):
        ps._moved([F(1, ps._LIST, (ps._STRUCT, [[*chunk, F(4, ps._I64, 9)]]))], 0, 0)


def test_empty_segments_add_no_row_group(tmp_path: Path) -> None:
    schema = TABLES["nation"].arrow_schema
    empty = tmp_path / "empty.seg"
    writer = ParquetTableWriter(empty, schema)
    writer.close()
    (full,) = _segments(tmp_path, "nation", 1)
    joined = _joined(tmp_path, [empty, full, empty])
    assert pq.read_table(joined).equals(pq.read_table(full))
    only_empty = _joined(tmp_path, [empty], "only_empty.parquet")
    assert pq.read_table(only_empty).num_rows == 0
    assert pq.ParquetFile(only_empty).metadata.num_row_groups == 0


def test_segments_that_cannot_be_joined_are_one_line_errors(tmp_path: Path) -> None:
    table = pa.table({"a": pa.array(range(10), pa.int64())})
    indexed = tmp_path / "indexed.seg"
    pq.write_table(table, indexed, write_page_index=True)
    splicer = ps.ParquetSplicer(tmp_path / "x.parquet")
    with pytest.raises(DbgenError, match="page index"):
        splicer.append(indexed)
    splicer.abort()

    other = tmp_path / "other.seg"
    pq.write_table(pa.table({"b": pa.array(["x"])}), other)
    plain = tmp_path / "plain.seg"
    pq.write_table(table, plain)
    splicer = ps.ParquetSplicer(tmp_path / "y.parquet")
    splicer.append(plain)
    with pytest.raises(DbgenError, match="different schemas"):
        splicer.append(other)
    splicer.abort()

    broken = tmp_path / "broken.seg"
    broken.write_bytes(b"PAR1 not really parquet")
    splicer = ps.ParquetSplicer(tmp_path / "z.parquet")
    with pytest.raises(DbgenError, match="no valid footer"):
        splicer.append(broken)
    splicer.abort()
