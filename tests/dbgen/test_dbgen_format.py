"""tbl formatting edge cases: negative money, 10-digit keys, l_quantity, separators."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from dbbench.dbgen import api
from dbbench.dbgen.columns import dates, money, padded
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.formats.tbl import format_delete_keys, format_tbl
from dbbench.dbgen.schema import TABLES


def _customer(keys: list[int], balances: list[int]) -> pa.RecordBatch:
    n = len(keys)
    k = np.asarray(keys, dtype=np.int64)
    return pa.RecordBatch.from_arrays(
        [
            pa.array(k),
            padded("Customer#", k, 9),
            pa.array(["addr"] * n),
            pa.array(np.zeros(n, dtype=np.int64)),
            pa.array(["10-100-100-1000"] * n),
            money(np.asarray(balances, dtype=np.int64)),
            pa.array(["BUILDING"] * n),
            pa.array([" c "] * n),
        ],
        schema=TABLES["customer"].arrow_schema,
    )


def test_negative_money_and_wide_keys() -> None:
    batch = _customer([7, 1_234_567_890], [-5, -99999])
    assert format_tbl(batch, "customer") == (
        b"7|Customer#000000007|addr|0|10-100-100-1000|-0.05|BUILDING| c |\n"
        b"1234567890|Customer#1234567890|addr|0|10-100-100-1000|-999.99|BUILDING| c |\n"
    )


def test_money_edges() -> None:
    batch = _customer([1, 2, 3, 4], [0, 100, 999999, 6_000_000_000])
    fields = [line.split(b"|")[5] for line in format_tbl(batch, "customer").splitlines()]
    assert fields == [b"0.00", b"1.00", b"9999.99", b"60000000.00"]


def test_without_trailing_separator() -> None:
    batch = _customer([1], [12])
    assert format_tbl(batch, "customer", trailing_separator=False).endswith(b"| c \n")


def test_lineitem_quantity_is_an_integer_and_dates_iso() -> None:
    batch = next(api.table_batches("lineitem", 0.01, batch_rows=8))
    line = format_tbl(batch, "lineitem").split(b"\n")[0]
    assert line.split(b"|")[4] == b"17"
    assert line.split(b"|")[10] == b"1996-03-13"


def test_dates_outside_dbgen_table_still_format() -> None:
    batch = next(api.table_batches("orders", 0.01, batch_rows=2))
    cols = batch.columns
    cols[4] = dates(np.array([-8035, 20000]))  # 1970-01-01 and 2046-10-04
    odd = pa.RecordBatch.from_arrays(cols, schema=batch.schema)
    fields = [line.split(b"|")[4] for line in format_tbl(odd, "orders").splitlines()]
    assert fields == [b"1970-01-01", b"2046-10-04"]


def test_delete_keys_format() -> None:
    assert format_delete_keys(np.array([1, 9_999_999_999])) == b"1|\n9999999999|\n"
    assert format_delete_keys(np.array([], dtype=np.int64)) == b""


def test_empty_batch_is_empty_bytes() -> None:
    empty = TABLES["region"].arrow_schema.empty_table().to_batches()
    batch = empty[0] if empty else pa.RecordBatch.from_pylist([], TABLES["region"].arrow_schema)
    assert format_tbl(batch, "region") == b""


def test_bad_table_or_columns() -> None:
    batch = _customer([1], [1])
    with pytest.raises(DbgenError, match="unknown table"):
        format_tbl(batch, "customers")
    with pytest.raises(DbgenError, match="do not match"):
        format_tbl(batch, "supplier")


@pytest.mark.parametrize("table", ["lineitem", "orders", "supplier"])
def test_sliced_batches_format_their_own_rows(table: str) -> None:
    """Offsets into Arrow buffers (sliced batches) are honoured by the lookup-table paths."""
    batch = next(api.table_batches(table, 0.01, batch_rows=40))
    whole = format_tbl(batch, table).split(b"\n")
    assert format_tbl(batch.slice(3, 5), table) == b"\n".join(whole[3:8]) + b"\n"
