"""The public API: table selection, scale validation, row counts, schemas, chunks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.schema import TABLES


def test_table_names_in_generation_order() -> None:
    assert list(TABLES) == [
        "part",
        "partsupp",
        "supplier",
        "customer",
        "orders",
        "lineitem",
        "nation",
        "region",
    ]


@pytest.mark.parametrize(
    ("spec", "tables"),
    [
        ("c", ["customer"]),
        ("p", ["part", "partsupp"]),
        ("o", ["orders", "lineitem"]),
        ("l", ["nation", "region"]),
        ("L,O", ["orders", "lineitem"]),
        ("S, P", ["part", "partsupp"]),
        ("r,n,s", ["supplier", "nation", "region"]),
        ("lineitem,Region", ["lineitem", "region"]),
    ],
)
def test_parse_tables(spec: str, tables: list[str]) -> None:
    assert api.parse_tables(spec) == tables


@pytest.mark.parametrize("spec", ["x", "", "orders,q", "C"])
def test_parse_tables_rejects_unknown(spec: str) -> None:
    with pytest.raises(DbgenError, match="unknown table"):
        api.parse_tables(spec)


@pytest.mark.parametrize("sf", [0, -1, math.nan, math.inf, -math.inf])
def test_validate_scale_rejects(sf: float) -> None:
    with pytest.raises(DbgenError, match="positive finite"):
        api.validate_scale(sf)


def test_validate_scale_overflow_and_junk() -> None:
    with pytest.raises(DbgenError, match="overflow 64-bit"):
        api.validate_scale(1e13)
    assert api.validate_scale(100_000) == 100_000
    with pytest.raises(DbgenError, match="not a number"):
        api.validate_scale("ten")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sf", "counts"),
    [
        (0.01, {"part": 2000, "partsupp": 8000, "supplier": 100, "customer": 1500}),
        (1, {"part": 200_000, "partsupp": 800_000, "supplier": 10_000, "orders": 1_500_000}),
        (1.5, {"customer": 150_000, "orders": 1_500_000}),  # dbgen truncates SF >= 1
        (0.001, {"supplier": 10, "orders": 1500, "nation": 25, "region": 5}),
    ],
)
def test_row_counts(sf: float, counts: dict[str, int]) -> None:
    for table, n in counts.items():
        assert api.row_count(table, sf) == n, table


def test_lineitem_counts() -> None:
    assert api.row_count("lineitem", 0.01) == 60_175
    assert api.row_count("lineitem", 1) == 6_001_215  # spec Table 4, counted exactly
    assert api.row_count("lineitem", 100) == 600_037_902  # spec Table 4
    assert api.order_count(0.1) == 150_000


@pytest.mark.parametrize("table", list(TABLES))
def test_batches_have_the_schema(table: str) -> None:
    batches = list(api.table_batches(table, 0.01, batch_rows=1000))
    assert all(b.schema == TABLES[table].arrow_schema for b in batches)
    assert sum(b.num_rows for b in batches) == api.row_count(table, 0.01)
    if table not in ("lineitem", "partsupp"):
        assert max(b.num_rows for b in batches) <= 1000


def test_nation_and_region_are_not_chunked() -> None:
    assert [b.num_rows for b in api.table_batches("nation", 1, part=1, parts=4)] == [25]
    assert list(api.table_batches("region", 1, part=2, parts=4)) == []


@pytest.mark.parametrize(("part", "parts"), [(0, 3), (4, 3), (1, 0)])
def test_bad_parts(part: int, parts: int) -> None:
    with pytest.raises(DbgenError, match="not valid"):
        next(api.table_batches("customer", 0.01, part=part, parts=parts))


def test_unknown_table_and_bad_batch_size() -> None:
    with pytest.raises(DbgenError, match="unknown table"):
        api.row_count("orderz", 1)
    with pytest.raises(DbgenError, match="batch_rows"):
        next(api.table_batches("part", 0.01, batch_rows=0))


@pytest.mark.parametrize(("sf", "rows"), [(0.01, 10), (0.1, 150), (1, 1500), (10, 15_000)])
def test_rows_per_update_set(sf: float, rows: int) -> None:
    assert api.rows_per_update_set(sf) == rows


def test_update_keys_fill_the_holes() -> None:
    inserted = np.concatenate(
        [b.column(0).to_numpy() for b in api.update_batches("orders", 0.1, 3)]
    )
    assert len(inserted) == 150
    assert set((inserted % 32 // 8).tolist()) == {1}  # offsets 8..15 of each 32-key group
    deleted = api.delete_keys(0.1, 3)
    assert np.array_equal(inserted, deleted + 8)
    base = next(api.table_batches("orders", 0.1, batch_rows=450)).column(0).to_numpy()
    assert np.array_equal(deleted, base[300:450])


def test_update_slices_equal_the_whole_set() -> None:
    whole = [row for b in api.update_batches("lineitem", 0.1, 2) for row in b.to_pylist()]
    parts = [
        row
        for start in range(0, 150, 40)
        for b in api.update_batches("lineitem", 0.1, 2, start=start, count=min(40, 150 - start))
        for row in b.to_pylist()
    ]
    assert whole == parts


def test_bad_update_requests() -> None:
    with pytest.raises(DbgenError, match="start at 1"):
        api.delete_keys(1, 0)
    with pytest.raises(DbgenError, match="not 'part'"):
        next(api.update_batches("part", 1, 1))
    with pytest.raises(DbgenError, match="outside"):
        next(api.update_batches("orders", 0.01, 1, start=5, count=6))
