"""ORDERS and LINEITEM, the parent/child pair chunked by orders (§5.6, §3.3, §3.4).

A batch of orders is generated as columns; its lines as (orders, 7) matrices, one column per
line slot, masked by each order's line count. Each LINE stream spends 7 draws per order
(14 for the comment), so slot ``l`` of an order is simply draw ``l`` of that order. The one
data-dependent draw is the return flag, taken only by lines received before CURRENTDATE:
its draw index is the running count of such lines within the order.

At SF >= 30000 o_custkey and l_partkey come from dbgen's 64-bit LCG, whose state cannot be
reached by skip-ahead inside a chunk (the end-of-order padding of l_partkey applies the
31-bit skip to the 64-bit state). Those two columns are then carried from batch to batch in
a :class:`LargeState`, and l_partkey is stepped order by order (the only scalar loop of the
generator, and only at these scales).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from dbbench.dbgen import arrow, dists, rng
from dbbench.dbgen.columns import (
    CURRENT_DATE_INDEX,
    dates,
    int32,
    int64,
    money,
    padded,
    picks,
    text,
)
from dbbench.dbgen.rng import U64, unif
from dbbench.dbgen.scale import base_count, int_scale
from dbbench.dbgen.schema import LINEITEM, ORDERS
from dbbench.dbgen.tables.part import retail_price, supplier_of

O_SUPP, O_CLRK, O_CMNT, O_ODATE, O_PRIO, O_CKEY, O_LCNT = 10, 11, 12, 13, 38, 40, 43
L_QTY, L_DCNT, L_TAX, L_SHIP, L_SMODE, L_PKEY, L_SKEY = 14, 15, 16, 17, 18, 19, 20
L_SDTE, L_CDTE, L_RDTE, L_RFLG, L_CMNT = 21, 22, 23, 24, 25
ODATE_LAST = 2405  # ENDDATE - 151 days, as an index from 1992-01-01
I64 = npt.NDArray[np.int64]
MAX_LINES = 7
_STATUS = arrow.strings(["F", "O"])
_FLAGS = arrow.strings([*dists.RFLAG.values, "N"])
_ORDER_STATUS = arrow.strings(["F", "O", "P"])


def order_key(index: I64 | int, seq: int) -> I64:
    """Sparse key of row index i (1-based): (i div 8)·32 + seq·8 + (i mod 8)."""
    i = np.asarray(index, dtype=np.int64)
    return ((i >> 3) << 5) + (seq << 3) + (i & 7)


@dataclass
class LargeState:
    """64-bit LCG states carried across batches (SF >= 30000 only)."""

    custkey: int
    partkey: int

    @classmethod
    def at(cls, gen_row: int) -> LargeState:
        """States before order ``gen_row``: dbgen's 31-bit skip from the initial seeds."""
        return cls(
            rng.skip(rng.SEEDS[O_CKEY][0], gen_row),
            rng.skip(rng.SEEDS[L_PKEY][0], gen_row * MAX_LINES),
        )


@dataclass(frozen=True)
class OrderBlock:
    """Which orders to generate: stream position, key numbering and scale."""

    sf: float
    gen_start: int  # 0-based position in the order streams
    count: int
    first_index: int  # 1-based row index of the first order (for its key)
    seq: int = 0  # 0 for base data, 1 + n div 1000 for update set n


def _custkeys(block: OrderBlock, state: LargeState | None) -> I64:
    customers = base_count("customer", block.sf)
    if state is None:
        k = unif(rng.draw(O_CKEY, block.gen_start, block.count), 1, customers)
    else:
        states = rng.lcg_sequence(state.custkey, block.count)
        if block.count:
            state.custkey = int(states[-1])
        k = rng.lcg_values(states, 1, customers)
    bump = k % 3 == 0
    up = np.where(k + 1 <= customers, k + 1, k - 1)
    return np.where(bump, up, k)


def _partkeys(block: OrderBlock, lines: I64, state: LargeState | None) -> I64:
    parts = base_count("part", block.sf)
    if state is None:
        return unif(rng.draws(L_PKEY, block.gen_start, block.count, MAX_LINES), 1, parts)
    out = np.zeros((block.count, MAX_LINES), dtype=np.int64)
    x = state.partkey
    for o, n_lines in enumerate(lines.tolist()):
        for slot in range(n_lines):
            x = rng.lcg_next(x)
            out[o, slot] = rng.lcg_value(x, 1, parts)
        x = rng.pm_skip_wrapped(x, MAX_LINES - n_lines)
    state.partkey = x
    return out


def advance_large_state(block: OrderBlock, state: LargeState) -> None:
    """Step the 64-bit streams over ``block`` without generating its rows."""
    _custkeys(block, state)
    _partkeys(block, unif(rng.draw(O_LCNT, block.gen_start, block.count), 1, MAX_LINES), state)


class _Lines:
    """Line-slot matrices of one order block (only what the requested table needs)."""

    def __init__(self, block: OrderBlock, state: LargeState | None) -> None:
        g, n = block.gen_start, block.count
        self.block = block
        self.count = unif(rng.draw(O_LCNT, g, n), 1, MAX_LINES)
        self.valid = np.arange(MAX_LINES)[None, :] < self.count[:, None]
        self.odate = unif(rng.draw(O_ODATE, g, n), 0, ODATE_LAST)
        self.partkey = _partkeys(block, self.count, state)
        self.qty = unif(rng.draws(L_QTY, g, n, MAX_LINES), 1, 50)
        self.disc = unif(rng.draws(L_DCNT, g, n, MAX_LINES), 0, 10)
        self.tax = unif(rng.draws(L_TAX, g, n, MAX_LINES), 0, 8)
        self.ship = self.odate[:, None] + unif(rng.draws(L_SDTE, g, n, MAX_LINES), 1, 121)
        self.eprice = retail_price(self.partkey) * self.qty

    def total_price(self) -> I64:
        net = (self.eprice * (100 - self.disc)) // 100
        gross = (net * (100 + self.tax)) // 100
        total: I64 = np.where(self.valid, gross, 0).sum(axis=1)
        return total

    def order_status(self) -> pa.Array:
        shipped = ((self.ship <= CURRENT_DATE_INDEX) & self.valid).sum(axis=1)
        code = np.where(shipped == self.count, 0, np.where(shipped == 0, 1, 2))
        return _ORDER_STATUS.take(arrow.ints(code))


def orders_batch(block: OrderBlock, state: LargeState | None) -> pa.RecordBatch:
    """ORDERS rows of ``block``."""
    g, n = block.gen_start, block.count
    lines = _Lines(block, state)
    index = np.arange(block.first_index, block.first_index + n, dtype=np.int64)
    clerks = max(1000 * int_scale(block.sf), 1000)
    comment = rng.draws(O_CMNT, g, n, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(order_key(index, block.seq)),
            int64(_custkeys(block, state)),
            lines.order_status(),
            money(lines.total_price()),
            dates(lines.odate),
            picks(dists.O_OPRIO, rng.draw(O_PRIO, g, n)),
            padded("Clerk#", unif(rng.draw(O_CLRK, g, n), 1, clerks), 9),
            int32(np.zeros(n, dtype=np.int64)),
            text(comment[:, 0], comment[:, 1], 49),
        ],
        schema=ORDERS.arrow_schema,
    )


def _return_flags(valid: npt.NDArray[np.bool_], receipt: I64, sel: I64, raw: U64) -> pa.Array:
    """R/A from the k-th draw for the k-th line received by CURRENTDATE, else N.

    ``valid``/``raw`` are (orders, 7) matrices, ``receipt`` is per real line.
    """
    due_flat = receipt <= CURRENT_DATE_INDEX
    due = np.zeros(valid.shape, dtype=np.bool_)
    due.reshape(-1)[sel] = due_flat
    rank = (np.cumsum(due, axis=1) - 1).reshape(-1)[sel]  # draw index of each due line
    order = sel // MAX_LINES
    flag = unif(raw[order, np.maximum(rank, 0)], 1, dists.RFLAG.total)
    code = np.where(due_flat, dists.RFLAG.pick(flag), 2)
    return _FLAGS.take(arrow.ints(code))


def lineitem_batch(block: OrderBlock, state: LargeState | None) -> pa.RecordBatch:
    """LINEITEM rows of ``block``: grouped by order, line numbers ascending."""
    g, n = block.gen_start, block.count
    if state is not None:  # o_custkey's stream must advance with the orders it belongs to
        _custkeys(block, state)
    lines = _Lines(block, state)
    v = lines.valid
    sel = np.flatnonzero(v)  # the real lines among the (order, slot) cells, in file order

    def flat(m: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.take(m.reshape(-1), sel)

    index = np.arange(block.first_index, block.first_index + n, dtype=np.int64)
    slot = unif(flat(rng.draws(L_SKEY, g, n, MAX_LINES)), 0, 3)
    partkey = flat(lines.partkey)
    odate = np.repeat(lines.odate, lines.count)
    ship = flat(lines.ship)
    receipt = ship + unif(flat(rng.draws(L_RDTE, g, n, MAX_LINES)), 1, 30)
    comment = rng.draws(L_CMNT, g, n, 2 * MAX_LINES).reshape(n * MAX_LINES, 2)[sel]
    return pa.RecordBatch.from_arrays(
        [
            int64(np.repeat(order_key(index, block.seq), lines.count)),
            int64(partkey),
            int64(supplier_of(partkey, slot, base_count("supplier", block.sf))),
            int32(sel % MAX_LINES + 1),
            money(flat(lines.qty) * 100),
            money(flat(lines.eprice)),
            money(flat(lines.disc)),
            money(flat(lines.tax)),
            _return_flags(v, receipt, sel, rng.draws(L_RFLG, g, n, MAX_LINES)),
            _STATUS.take(arrow.ints(ship > CURRENT_DATE_INDEX, np.int8)),
            dates(ship),
            dates(odate + unif(flat(rng.draws(L_CDTE, g, n, MAX_LINES)), 30, 90)),
            dates(receipt),
            picks(dists.INSTRUCT, flat(rng.draws(L_SHIP, g, n, MAX_LINES))),
            picks(dists.SMODE, flat(rng.draws(L_SMODE, g, n, MAX_LINES))),
            text(comment[:, 0], comment[:, 1], 27),
        ],
        schema=LINEITEM.arrow_schema,
    )
