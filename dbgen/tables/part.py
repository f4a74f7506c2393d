"""PART and PARTSUPP, the parent/child pair chunked by parts (§5.6)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from dbbench.dbgen import arrow, dists, rng
from dbbench.dbgen.columns import int32, int64, money, padded, picks, text
from dbbench.dbgen.rng import unif
from dbbench.dbgen.scale import Span
from dbbench.dbgen.schema import PART, PARTSUPP

P_MFG, P_BRND, P_TYPE, P_SIZE, P_CNTR, P_CMNT, P_NAME = 0, 1, 2, 3, 4, 6, 37
PS_QTY, PS_SCST, PS_CMNT = 7, 8, 9
NAME_WORDS = 5

I64 = npt.NDArray[np.int64]


def retail_price(partkey: I64) -> I64:
    """p_retailprice in cents; a pure function of the key (also used for l_extendedprice)."""
    p = np.asarray(partkey, dtype=np.int64)
    return 90000 + (p // 10) % 20001 + 100 * (p % 1000)


def _names(span: Span) -> pa.Array:
    """Five distinct colours: the first five steps of a 92-draw permutation.

    Step i swaps position i with a position >= i, so positions 0..4 are final after five
    steps; the remaining 87 draws only fill the row's budget.
    """
    n = span.count
    raw = rng.draws(P_NAME, span.start, n, NAME_WORDS)
    perm = np.tile(np.arange(92, dtype=np.int16), (n, 1))
    rows = np.arange(n)
    for i in range(NAME_WORDS):
        r = unif(raw[:, i], i, 91)
        a, b = perm[rows, i].copy(), perm[rows, r].copy()
        perm[rows, i], perm[rows, r] = b, a
    colours = arrow.strings(dists.COLORS.values)
    words = [colours.take(arrow.ints(perm[:, i])) for i in range(NAME_WORDS)]
    return pc.binary_join_element_wise(*words, arrow.scalar(" "))


def part(span: Span) -> pa.RecordBatch:
    """Parts ``span.start+1 .. span.start+span.count``."""
    n = span.count
    keys = np.arange(span.start + 1, span.start + n + 1, dtype=np.int64)
    m = unif(rng.draw(P_MFG, span.start, n), 1, 5)
    brand = 10 * m + unif(rng.draw(P_BRND, span.start, n), 1, 5)
    comment = rng.draws(P_CMNT, span.start, n, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(keys),
            _names(span),
            padded("Manufacturer#", m, 1),
            padded("Brand#", brand, 2),
            picks(dists.P_TYPES, rng.draw(P_TYPE, span.start, n)),
            int32(unif(rng.draw(P_SIZE, span.start, n), 1, 50)),
            picks(dists.P_CNTR, rng.draw(P_CNTR, span.start, n)),
            money(retail_price(keys)),
            text(comment[:, 0], comment[:, 1], 14),
        ],
        schema=PART.arrow_schema,
    )


def supplier_of(partkey: I64, slot: I64, suppliers: int) -> I64:
    """ps_suppkey (and l_suppkey): ((p + j·(S div 4 + (p−1) div S)) mod S) + 1."""
    s = suppliers
    return (partkey + slot * (s // 4 + (partkey - 1) // s)) % s + 1


def partsupp(span: Span, suppliers: int) -> pa.RecordBatch:
    """The four PARTSUPP rows of each part in ``span``, in slot order."""
    n = span.count
    keys = np.repeat(np.arange(span.start + 1, span.start + n + 1, dtype=np.int64), 4)
    slots = np.tile(np.arange(4, dtype=np.int64), n)
    qty = rng.draws(PS_QTY, span.start, n, 4).reshape(-1)
    cost = rng.draws(PS_SCST, span.start, n, 4).reshape(-1)
    comment = rng.draws(PS_CMNT, span.start, n, 8).reshape(-1, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(keys),
            int64(supplier_of(keys, slots, suppliers)),
            int32(unif(qty, 1, 9999)),
            money(unif(cost, 100, 100000)),
            text(comment[:, 0], comment[:, 1], 124),
        ],
        schema=PARTSUPP.arrow_schema,
    )
