"""The writer's sinks keep every value: .tbl, CSV and Parquet read back equal the Arrow
batches of the generator, for every table at SF 0.01 (and the update sets), whether one
process writes a file or several write its segments; plus the pure pieces of the writer
(sub-chunk alignment, row-group cutting, file naming) checked on hand-made inputs.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from dbbench.dbgen import api
from dbbench.dbgen.formats import csv as csv_format
from dbbench.dbgen.formats.parquet import ROW_GROUP_ROWS, ParquetTableWriter
from dbbench.dbgen.schema import FEW_VALUES, TABLES
from dbbench.dbgen.segments import DELETE_SCHEMA
from dbbench.dbgen.writer import GenOptions, generate, plan, split_count

SF = 0.01


def arrow_table(table: str) -> pa.Table:
    schema = TABLES[table].arrow_schema
    return pa.Table.from_batches(list(api.table_batches(table, SF)), schema=schema)


def read_tbl(path: Path, schema: pa.Schema) -> pa.Table:
    """Parse a .tbl file (trailing '|' gives one extra empty column) into ``schema``."""
    names = [*schema.names, "_end"]
    types = {f.name: f.type for f in schema} | {"_end": pa.string()}
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter="|", quote_char=False),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False),
    )
    assert set(table["_end"].to_pylist()) <= {""}
    return table.drop(["_end"]).cast(schema)


def read_csv(path: Path, schema: pa.Schema) -> pa.Table:
    read, convert = csv_format.read_options(schema)
    header = path.read_text().split("\n", 1)[0]
    assert header == ",".join(f'"{n}"' for n in schema.names)
    return pacsv.read_csv(path, read_options=read, convert_options=convert).cast(schema)


def assert_same(got: pa.Table, want: pa.Table, what: str) -> None:
    """Equal tables; on failure, name the first row that differs."""
    assert got.schema.equals(want.schema, check_metadata=False), (what, got.schema)
    assert got.num_rows == want.num_rows, (what, got.num_rows, want.num_rows)
    if got.equals(want):
        return
    for i, (a, b) in enumerate(zip(got.to_pylist(), want.to_pylist(), strict=True)):
        assert a == b, f"{what}: row {i} differs: {a} != {b}"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """All tables in each format; Parquet over two processes with small segments."""
    dirs = {}
    for fmt, jobs, segment in (("tbl", 1, 1 << 25), ("csv", 2, 200_000), ("parquet", 2, 200_000)):
        out = tmp_path_factory.mktemp(fmt)
        generate(GenOptions(SF, out, fmt=fmt, jobs=jobs, segment_bytes=segment))  # type: ignore[arg-type]
        dirs[fmt] = out
    return dirs


@pytest.mark.parametrize("table", list(TABLES))
def test_every_format_reads_back_the_arrow_values(table: str, written: dict[str, Path]) -> None:
    want = arrow_table(table)
    schema = want.schema
    assert_same(read_tbl(written["tbl"] / f"{table}.tbl", schema), want, f"{table}.tbl")
    assert_same(read_csv(written["csv"] / f"{table}.csv", schema), want, f"{table}.csv")
    parquet = pq.read_table(written["parquet"] / f"{table}.parquet")
    assert_same(parquet, want, f"{table}.parquet")


def test_parquet_types_compression_and_row_groups(written: dict[str, Path]) -> None:
    meta = pq.ParquetFile(written["parquet"] / "lineitem.parquet").metadata
    schema = meta.schema
    names = [schema.column(i).name for i in range(len(schema))]
    price = schema.column(names.index("l_extendedprice"))
    assert (price.physical_type, str(price.logical_type)) == (
        "INT64",
        "Decimal(precision=15, scale=2)",
    )
    ship = schema.column(names.index("l_shipdate"))
    assert str(ship.logical_type) == "Date"
    assert schema.column(names.index("l_comment")).logical_type.type == "STRING"
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        assert group.num_rows <= ROW_GROUP_ROWS
        assert {group.column(c).compression for c in range(group.num_columns)} == {"SNAPPY"}
        # A dictionary on the columns of few values, on no other.
        dictionary = {
            names[c] for c in range(group.num_columns) if group.column(c).has_dictionary_page
        }
        assert dictionary == {n for n in names if n in FEW_VALUES}, f"row group {g}"


def test_few_values_names_real_columns() -> None:
    columns = {c for t in TABLES.values() for c in t.column_names}
    assert columns >= FEW_VALUES, sorted(FEW_VALUES - columns)


@pytest.mark.parametrize("fmt", ["tbl", "csv", "parquet"])
def test_update_sets_read_back(fmt: str, tmp_path: Path) -> None:
    generate(GenOptions(SF, tmp_path, fmt=fmt, updates=2, jobs=1))  # type: ignore[arg-type]
    for n in (1, 2):
        for table in ("orders", "lineitem"):
            schema = TABLES[table].arrow_schema
            want = pa.Table.from_batches(list(api.update_batches(table, SF, n)), schema=schema)
            if fmt == "tbl":
                got = read_tbl(tmp_path / f"{table}.tbl.u{n}", schema)
            elif fmt == "csv":
                got = read_csv(tmp_path / f"{table}.u{n}.csv", schema)
            else:
                got = pq.read_table(tmp_path / f"{table}.u{n}.parquet")
            assert_same(got, want, f"{table} set {n} ({fmt})")
        keys = api.delete_keys(SF, n).tolist()
        if fmt == "tbl":
            lines = (tmp_path / f"delete.{n}").read_text().splitlines()
            assert lines == [f"{k}|" for k in keys]
        elif fmt == "csv":
            got = read_csv(tmp_path / f"delete.{n}.csv", DELETE_SCHEMA)
            assert got.column(0).to_pylist() == keys
        else:
            got = pq.read_table(tmp_path / f"delete.{n}.parquet")
            assert got.column(0).to_pylist() == keys


def _chunk(base: int, part: int, parts: int) -> range:
    """dbgen -C parts -S part over rows 0..base-1 (tpch.md §5.2): the rest goes last."""
    per = base // parts
    start = (part - 1) * per
    return range(start, base if part == parts else start + per)


def test_sub_chunks_line_up_with_the_part() -> None:
    """The aligned sub-chunks of part K cover exactly part K's rows, in order."""
    for base, parts, wanted in itertools.product(
        [1, 7, 10, 64, 97, 150, 1000], [1, 2, 3, 7], [1, 2, 5, 8]
    ):
        for part in range(1, parts + 1):
            m = split_count(base, part, parts, wanted)
            assert 1 <= m <= max(1, min(wanted, base))
            rows = [r for j in range(m) for r in _chunk(base, (part - 1) * m + j + 1, parts * m)]
            assert rows == list(_chunk(base, part, parts)), (base, part, parts, wanted, m)
    assert split_count(1_500_000, 1, 10, 24) == 24  # 150000 = 24 · 6250
    assert split_count(1_500_000, 1, 1, 24) == 24


def test_parquet_row_groups_are_cut_at_a_fixed_size(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("k", pa.int64(), nullable=False)])
    sizes = [300_000, ROW_GROUP_ROWS, 250_000, 1_234]
    writer = ParquetTableWriter(tmp_path / "t.parquet", schema)
    start = 0
    for n in sizes:
        writer.write(
            pa.record_batch([pa.array(range(start, start + n), pa.int64())], schema=schema)
        )
        start += n
    writer.close()
    meta = pq.ParquetFile(tmp_path / "t.parquet").metadata
    groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    total = sum(sizes)
    assert groups == [ROW_GROUP_ROWS, ROW_GROUP_ROWS, total - 2 * ROW_GROUP_ROWS]
    assert pq.read_table(tmp_path / "t.parquet").column(0).to_pylist() == list(range(total))


def test_file_names_per_format(tmp_path: Path) -> None:
    def names(**kw: object) -> list[str]:
        return [f.final.name for f in plan(GenOptions(SF, tmp_path, **kw))]  # type: ignore[arg-type]

    assert names(tables=("lineitem", "nation"), parts=2) == [
        "lineitem.tbl.1",
        "lineitem.tbl.2",
        "nation.tbl",
    ]
    assert names(tables=("orders", "region"), parts=3, part=2) == ["orders.tbl.2"]
    assert names(tables=("orders",), fmt="parquet", parts=2) == [
        "orders.1.parquet",
        "orders.2.parquet",
    ]
    assert names(tables=("customer",), fmt="csv") == ["customer.csv"]
    assert names(updates=1) == ["orders.tbl.u1", "lineitem.tbl.u1", "delete.1"]
    assert names(updates=1, fmt="csv") == ["orders.u1.csv", "lineitem.u1.csv", "delete.1.csv"]


@pytest.mark.parametrize(
    "refused",
    [(), ("copy_file_range",), ("copy_file_range", "sendfile")],
    ids=["copy_file_range", "sendfile", "user-space"],
)
def test_a_segment_is_appended_whole_by_each_way_of_copying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: tuple[str, ...]
) -> None:
    """Assembling appends a segment to its file by ``copy_file_range``, else ``sendfile``
    (across filesystems), else through user space: each way leaves the same bytes."""
    import errno
    import os

    from dbbench.dbgen import writer

    def no_kernel_copy(*args: object) -> int:
        raise OSError(errno.EXDEV, "not across filesystems")

    for name in refused:
        monkeypatch.setattr(os, name, no_kernel_copy)
    head, body = b"first|segment|\n" * 3, bytes(range(256)) * 5000
    dst, src = tmp_path / "lineitem.tbl", tmp_path / "seg"
    dst.write_bytes(head)
    src.write_bytes(body)
    writer._append_file(dst, str(src))
    assert dst.read_bytes() == head + body
