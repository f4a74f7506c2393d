"""What a Spark warehouse must hold after a run: DuckDB loaded at the same SF with the same
update sets applied in the same order, compared table by table, row for row."""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from dbbench.drivers.engine import Engine
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer.refresh import generate_update_set

#: The refreshed tables and their keys.
KEYS = {"orders": ["o_orderkey"], "lineitem": ["l_orderkey", "l_linenumber"]}


def duckdb_after_sets(sf: float, sets: Iterable[int]) -> Engine:
    """An in-memory DuckDB at ``sf`` with RF1 and RF2 of each set applied."""
    engine = open_engine("duckdb")
    load_database(engine, sf)
    session = engine.session()
    for number in sets:
        data = generate_update_set(sf, number)
        session.refresh_insert(data.orders, data.lineitem)
        session.refresh_delete(data.delete_keys)
    session.close()
    return engine


def assert_same_rows(
    got: pa.Table, duck: Engine, table: str, sf: float, sets: Iterable[int]
) -> None:
    """``got`` (a Spark table as Arrow) equals DuckDB's, and every set's rows are in it and
    its deleted orders are not; the message names the first differing row."""
    order = [(k, "ascending") for k in KEYS[table]]
    got = got.sort_by(order)
    want = duck._db.sql(f"SELECT * FROM {table}").to_arrow_table().sort_by(order)  # type: ignore[attr-defined]
    assert got.num_rows == want.num_rows, (table, got.num_rows, want.num_rows)
    got = got.cast(want.schema)
    if not got.equals(want):
        first = next(i for i in range(want.num_rows) if got.slice(i, 1) != want.slice(i, 1))
        raise AssertionError(
            f"{table} row {first}: {got.slice(first, 1).to_pylist()} != "
            f"{want.slice(first, 1).to_pylist()}"
        )
    keys = set(got.column(KEYS[table][0]).to_pylist())
    for number in sets:
        data = generate_update_set(sf, number)
        assert set(data.orders.column("o_orderkey").to_pylist()) <= keys, number
        assert not keys & set(data.delete_keys), number
