"""The public face of the generator: what the writer, the loaders and the CLI call.

Tables come out as Arrow record batches with exactly ``dbgen.schema.TABLES[t].arrow_schema``.
Part K of N is dbgen's ``-C N -S K`` chunk (by orders for lineitem, by parts for partsupp),
so the parts concatenated in order are the whole table; batches inside a part are bounded
in size whatever the scale factor.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.generators import (
    GENERATORS,
    UPDATED_TABLES,
    TableGenerator,
    order_batches,
    sub_spans,
)
from dbbench.dbgen.scale import LARGE_SCALE, Span, base_count, chunk, updates_per_set
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.tables.orders import LargeState, OrderBlock, advance_large_state, order_key

#: dbgen ``-T`` letters: each table's own (from the schema) and dbgen's three groups.
_LETTERS: dict[str, tuple[str, ...]] = {
    **{t.letter: (t.name,) for t in TABLES.values()},
    "p": ("part", "partsupp"),
    "o": ("orders", "lineitem"),
    "l": ("nation", "region"),
}
DEFAULT_BATCH_ROWS = 100_000
#: Largest scale factor whose keys (about 6,000,000·SF for orders) fit a signed 64-bit int.
MAX_SCALE = (2**63 - 1) // 6_000_000
#: Smallest scale factor: below it the tables stop scaling (SUPPLIER's 10,000·SF rows round
#: up to one, every smaller SF generates the same rows) and the metrics, reported to 0.1,
#: round to zero (``run -s 1e-9`` loaded, ran, then failed).
MIN_SCALE = 0.001


def parse_tables(spec: str) -> list[str]:
    """Tables named by dbgen ``-T`` letters or full names, comma separated, in dbgen order."""
    chosen: set[str] = set()
    for item in (s.strip() for s in spec.split(",")):
        if item in _LETTERS:
            chosen.update(_LETTERS[item])
        elif item.lower() in TABLES:
            chosen.add(item.lower())
        else:
            known = "r n s c P S O L p o l or a table name"
            raise DbgenError(f"unknown table {item!r} (use {known})")
    return [t for t in TABLES if t in chosen]


def validate_scale(sf: float) -> float:
    """The scale factor if dbgen can generate it, else a one-line DbgenError."""
    try:
        value = float(sf)
    except (TypeError, ValueError) as exc:
        raise DbgenError(f"scale factor {sf!r} is not a number") from exc
    if not math.isfinite(value) or value <= 0:
        raise DbgenError(f"scale factor must be a positive finite number, got {sf!r}")
    if value < MIN_SCALE:
        raise DbgenError(
            f"scale factor {sf!r} is too small: below {MIN_SCALE} the tables stop scaling "
            "and Power@Size rounds to zero"
        )
    if value > MAX_SCALE:
        raise DbgenError(
            f"scale factor {sf!r} is too large: order keys would overflow 64-bit integers "
            f"(maximum {MAX_SCALE})"
        )
    return value


def order_count(sf: float) -> int:
    """ORDERS rows at ``sf`` (the unit LINEITEM is generated and chunked in)."""
    return base_count("orders", validate_scale(sf))


def row_count(table: str, sf: float) -> int:
    """Rows of ``table``: exact, except LINEITEM above SF10 (the spec's Table 4 counts for
    the scale factors it lists, else 4 lines per order)."""
    gen = generator(table)
    return gen.count(validate_scale(sf))


def generator(table: str) -> TableGenerator:
    """The registry entry of ``table``; a one-line DbgenError for an unknown name."""
    try:
        return GENERATORS[table]
    except KeyError:
        raise DbgenError(f"unknown table {table!r}") from None


def _check_part(part: int, parts: int) -> None:
    if parts < 1 or not 1 <= part <= parts:
        raise DbgenError(f"part {part} of {parts} is not valid (need 1 <= part <= parts)")


def table_batches(
    table: str,
    sf: float,
    *,
    part: int = 1,
    parts: int = 1,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """Batches of part ``part`` of ``parts`` of ``table`` at scale ``sf``.

    ``batch_rows`` bounds the rows of a batch; LINEITEM and PARTSUPP batches are cut by
    ``batch_rows / 4`` orders or parts (so at most 7/4·batch_rows lineitem rows). NATION and
    REGION are never chunked by dbgen: part 1 holds all their rows, the other parts are empty.
    """
    gen = generator(table)
    sf = validate_scale(sf)
    _check_part(part, parts)
    if batch_rows < 1:
        raise DbgenError(f"batch_rows must be positive, got {batch_rows}")
    span = chunk(gen.units(sf), part, parts) if gen.chunked else Span(0, int(part == 1))
    yield from gen.batches(sf, span, gen.units_per_batch(batch_rows))


def rows_per_update_set(sf: float) -> int:
    """Orders inserted, and order keys deleted, by one update set (1500·SF from SF1 on)."""
    return updates_per_set(validate_scale(sf))


def _set_range(
    sf: float, set_number: int, start: int, count: int | None, what: str
) -> tuple[float, int, int]:
    """``(sf, per_set, count)`` of rows ``start .. start+count−1`` of update set
    ``set_number`` (``count`` None: to the set's end); a set or range outside it is an error."""
    sf = validate_scale(sf)
    if set_number < 1:
        raise DbgenError(f"update set numbers start at 1, got {set_number}")
    per_set = updates_per_set(sf)
    count = per_set - start if count is None else count
    if start < 0 or count < 0 or start + count > per_set:
        raise DbgenError(f"{what} {start}..{start + count} are outside update set of {per_set}")
    return sf, per_set, count


def update_batches(
    table: str,
    sf: float,
    set_number: int,
    *,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    start: int = 0,
    count: int | None = None,
) -> Iterator[pa.RecordBatch]:
    """RF1 rows of update set ``set_number`` (``orders.tbl.u<n>`` / ``lineitem.tbl.u<n>``).

    The order streams continue after the base data (skip-ahead, no base generation); the keys
    of set n use row indexes (n−1)·R+1 .. n·R with sequence 1 + n div 1000, landing in the
    holes of the sparse key space. ``start``/``count`` select orders ``start ..
    start+count−1`` of the set (dbgen's ``-i`` segments), generated without the ones before,
    except at SF >= 30000 where dbgen's 64-bit l_partkey stream must be stepped through them.
    """
    gen = GENERATORS.get(table)
    if gen is None or gen.order_batch is None:
        held = " and ".join(UPDATED_TABLES)
        raise DbgenError(f"update sets hold {held} rows, not {table!r}")
    sf, per_set, count = _set_range(sf, set_number, start, count, "orders")
    first = order_count(sf) + (set_number - 1) * per_set
    index0 = (set_number - 1) * per_set + 1
    step = gen.units_per_batch(batch_rows)
    seq = 1 + set_number // 1000
    state = None
    if sf >= LARGE_SCALE:  # the 64-bit streams are stepped through the skipped orders
        state = LargeState.at(first)
        for sub in sub_spans(Span(first, start), step):
            advance_large_state(OrderBlock(sf, sub.start, sub.count, 1), state)
    yield from order_batches(
        gen.order_batch,
        sf,
        Span(first + start, count),
        step,
        first_index=index0 + start,
        seq=seq,
        state=state,
    )


def delete_keys(
    sf: float, set_number: int, *, start: int = 0, count: int | None = None
) -> npt.NDArray[np.int64]:
    """RF2 keys of update set ``set_number`` (``delete.<n>``): the base orders of block n.

    ``start``/``count`` select keys ``start .. start+count−1`` of the set (``-d`` segments).
    """
    sf, per_set, count = _set_range(sf, set_number, start, count, "keys")
    first = (set_number - 1) * per_set + 1 + start
    index = np.arange(first, first + count, dtype=np.int64)
    return order_key(index, set_number // 1000)
