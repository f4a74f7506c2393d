"""The table registry: for each of the eight tables, how it is generated, counted and cut.

One entry per table of :data:`dbgen.schema.TABLES` (same names, same order, checked at
import), so that the API and the writer look a table's facts up here instead of comparing
table names: what unit the table is counted and chunked in (parts for PARTSUPP, orders for
LINEITEM, nothing for the fixed NATION and REGION), how many rows that makes, how to
generate a span of units, and the average ``.tbl`` row length the writer sizes its work by.
Scale factors are validated by the callers (:mod:`dbgen.api`), not here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import pyarrow as pa

from dbbench.dbgen import rng
from dbbench.dbgen.scale import LARGE_SCALE, Span, base_count
from dbbench.dbgen.schema import TABLES, Table
from dbbench.dbgen.tables import customer, region_nation, supplier
from dbbench.dbgen.tables import part as part_table
from dbbench.dbgen.tables.orders import (
    O_LCNT,
    LargeState,
    OrderBlock,
    lineitem_batch,
    orders_batch,
)

#: ``(sf, span of units, units per batch) -> batches``: a table's rows for ``span``.
Batches = Callable[[float, Span, int], Iterator[pa.RecordBatch]]
#: The batch of one block of orders (ORDERS and LINEITEM, base data and update sets).
OrderBatch = Callable[[OrderBlock, LargeState | None], pa.RecordBatch]

#: SF -> LINEITEM rows from the specification's Table 4, for scales too large to count.
LINEITEM_ROWS = {
    1: 6_001_215,
    10: 59_986_052,
    30: 179_998_372,
    100: 600_037_902,
    300: 1_799_989_091,
    1000: 5_999_989_709,
    3000: 18_000_048_306,
    10000: 59_999_994_267,
    30000: 179_999_978_268,
    100000: 599_999_969_200,
}
_EXACT_LINEITEM_ORDERS = 15_000_000  # count exactly up to SF10 (about a second)


@dataclass(frozen=True)
class TableGenerator:
    """How one table is generated; ``unit`` is None for a fixed table (never chunked)."""

    table: Table
    unit: str | None  # the scale.BASE unit the table is counted and chunked in
    rows_per_unit: int  # rows per unit (LINEITEM: up to 7, 4 on average), sizes batches
    row_bytes: int  # average .tbl row length (spec Table 3, SF1 files): sizing only
    count: Callable[[float], int]  # rows at a (validated) scale factor
    batches: Batches
    order_batch: OrderBatch | None = None  # ORDERS and LINEITEM: what update sets extend

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def chunked(self) -> bool:
        """Whether dbgen's ``-C/-S`` chunking splits the table (all but NATION, REGION)."""
        return self.unit is not None

    def units(self, sf: float) -> int:
        """The number of units that chunking divides (orders for LINEITEM, parts for
        PARTSUPP); 1 for a fixed table."""
        return 1 if self.unit is None else base_count(self.unit, sf)

    def units_per_batch(self, batch_rows: int) -> int:
        """Units per batch so that a batch holds about ``batch_rows`` rows."""
        return max(1, batch_rows // self.rows_per_unit)


@lru_cache(maxsize=32)
def lineitem_rows(sf: float) -> int:
    """Exact up to 15M orders (sums the line-count draws); beyond, the spec's Table 4 count
    for the scale factors it lists, else the estimate 4 lines per order."""
    orders = base_count("orders", sf)
    if orders <= _EXACT_LINEITEM_ORDERS:
        total = 0
        for start in range(0, orders, 1 << 21):
            n = min(1 << 21, orders - start)
            total += int(rng.unif(rng.draw(O_LCNT, start, n), 1, 7).sum())
        return total
    if sf == int(sf) and int(sf) in LINEITEM_ROWS:
        return LINEITEM_ROWS[int(sf)]
    return 4 * orders


def sub_spans(span: Span, step: int) -> Iterator[Span]:
    """``span`` cut into consecutive spans of at most ``step`` units."""
    for start in range(span.start, span.start + span.count, step):
        yield Span(start, min(step, span.start + span.count - start))


def order_batches(
    make: OrderBatch,
    sf: float,
    span: Span,
    step: int,
    *,
    first_index: int | None = None,
    seq: int = 0,
    state: LargeState | None = None,
) -> Iterator[pa.RecordBatch]:
    """ORDERS or LINEITEM (``make``) for the orders at stream positions ``span``."""
    if state is None and sf >= LARGE_SCALE:
        state = LargeState.at(span.start)
    index0 = span.start + 1 if first_index is None else first_index
    for sub in sub_spans(span, step):
        block = OrderBlock(sf, sub.start, sub.count, index0 + (sub.start - span.start), seq)
        yield make(block, state)


def _fixed(make: Callable[[], pa.RecordBatch]) -> Batches:
    def batches(sf: float, span: Span, step: int) -> Iterator[pa.RecordBatch]:
        if span.count:
            yield make()

    return batches


def _spans(make: Callable[[Span], pa.RecordBatch]) -> Batches:
    def batches(sf: float, span: Span, step: int) -> Iterator[pa.RecordBatch]:
        for sub in sub_spans(span, step):
            yield make(sub)

    return batches


def _partsupp(sf: float, span: Span, step: int) -> Iterator[pa.RecordBatch]:
    suppliers = base_count("supplier", sf)
    for sub in sub_spans(span, step):
        yield part_table.partsupp(sub, suppliers)


def _orders(make: OrderBatch) -> Batches:
    def batches(sf: float, span: Span, step: int) -> Iterator[pa.RecordBatch]:
        return order_batches(make, sf, span, step)

    return batches


def _per_unit(unit: str, rows: int = 1) -> Callable[[float], int]:
    def count(sf: float) -> int:
        return rows * base_count(unit, sf)

    return count


def _fixed_rows(rows: int) -> Callable[[float], int]:
    def count(sf: float) -> int:
        return rows

    return count


def _entries() -> dict[str, TableGenerator]:
    t = TABLES
    entries = (
        TableGenerator(t["part"], "part", 1, 122, _per_unit("part"), _spans(part_table.part)),
        TableGenerator(t["partsupp"], "part", 4, 144, _per_unit("part", 4), _partsupp),
        TableGenerator(
            t["supplier"], "supplier", 1, 142, _per_unit("supplier"), _spans(supplier.supplier)
        ),
        TableGenerator(
            t["customer"], "customer", 1, 163, _per_unit("customer"), _spans(customer.customer)
        ),
        TableGenerator(
            t["orders"], "orders", 1, 110, _per_unit("orders"), _orders(orders_batch), orders_batch
        ),
        TableGenerator(
            t["lineitem"], "orders", 4, 126, lineitem_rows, _orders(lineitem_batch), lineitem_batch
        ),
        TableGenerator(t["nation"], None, 1, 128, _fixed_rows(25), _fixed(region_nation.nation)),
        TableGenerator(t["region"], None, 1, 124, _fixed_rows(5), _fixed(region_nation.region)),
    )
    registry = {e.name: e for e in entries}
    if list(registry) != list(TABLES):  # pragma: no cover - a programming error
        raise RuntimeError("dbgen.generators must list the tables of dbgen.schema, in order")
    return registry


#: Table name -> its generator, in :data:`dbgen.schema.TABLES` order.
GENERATORS: dict[str, TableGenerator] = _entries()
#: The tables that update sets add rows to (RF1) and delete from (RF2).
UPDATED_TABLES: tuple[str, ...] = tuple(n for n, g in GENERATORS.items() if g.order_batch)
