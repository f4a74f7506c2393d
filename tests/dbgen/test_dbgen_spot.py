"""Spot rows from the reference (tpch.md §9): first rows, the 64-bit custkey at SF 30000,
the first order of update set 1, the keys of delete set 150 at SF 1."""

from __future__ import annotations

from dbbench.dbgen import api
from dbbench.dbgen.formats.tbl import format_delete_keys, format_tbl


def _first_line(table: str, sf: float, **kw: int) -> str:
    batch = next(api.table_batches(table, sf, batch_rows=4, **kw))
    return format_tbl(batch, table).split(b"\n")[0].decode()


def test_first_rows_sf1() -> None:
    assert (
        _first_line("nation", 1)
        == "0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|"
    )
    assert _first_line("region", 1) == (
        "0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final "
        "requests. regular accounts are according to |"
    )
    assert _first_line("lineitem", 1) == (
        "1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|"
        "DELIVER IN PERSON|TRUCK|egular courts above the|"
    )
    assert _first_line("orders", 1) == (
        "1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |"
    )


def test_orders_row_1_at_sf30000_uses_the_64_bit_custkey() -> None:
    line = _first_line("orders", 30000, part=1, parts=450_000_000)
    assert line == (
        "1|3898045469|O|200131.83|1996-01-02|5-LOW|Clerk#028516474|0|"
        "nstructions sleep furiously among |"
    )


def test_first_order_of_update_set_1_sf1() -> None:
    batch = next(api.update_batches("orders", 1, 1, batch_rows=2))
    assert format_tbl(batch, "orders").split(b"\n")[0].decode() == (
        "9|12658|O|129872.68|1998-07-06|4-NOT SPECIFIED|Clerk#000000248|0| blithely final "
        "packages cajole. regular waters are final requests. regular ac|"
    )


def test_delete_set_150_sf1() -> None:
    keys = api.delete_keys(1, 150)
    assert len(keys) == 1500
    assert format_delete_keys(keys[:3]) == b"893989|\n893990|\n893991|\n"
    inserted = next(api.update_batches("orders", 1, 150, batch_rows=1)).column(0)[0].as_py()
    assert inserted == 893997


def test_far_chunk_at_sf100000() -> None:
    """Part 499 of 1500 at SF 100000 starts at order 49,800,000,001 (keys past 2^31) and
    equals the same orders reached through a finer chunking."""
    a = next(api.table_batches("orders", 100_000, part=499, parts=1500, batch_rows=50))
    b = next(api.table_batches("orders", 100_000, part=498_000_001, parts=1_500_000_000))
    assert a.column(0)[0].as_py() == (49_800_000_001 >> 3 << 5) + (49_800_000_001 & 7)
    assert a.num_rows == 50
    assert a.to_pylist() == b.slice(0, 50).to_pylist()
