"""SUPPLIER, including the in-place "Customer … Complaints/Recommends" comments (§5.6)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dbbench.dbgen import rng
from dbbench.dbgen.columns import strings_from, text_bounds
from dbbench.dbgen.rng import unif
from dbbench.dbgen.scale import Span
from dbbench.dbgen.schema import SUPPLIER
from dbbench.dbgen.tables.party import PartyStreams, party_columns
from dbbench.dbgen.textpool import POOL_SIZE, get_pool

S_ADDR, S_NTRG, S_PHNE, S_ABAL, S_CMNT = 32, 33, 34, 35, 36
BBB_JNK, BBB_TYPE, BBB_CMNT, BBB_OFFSET = 44, 45, 46, 47
_CUSTOMER = np.frombuffer(b"Customer ", np.uint8)
_VERDICTS = np.frombuffer(b"ComplaintsRecommends", np.uint8).reshape(2, 10)


def _comments(span: Span) -> pa.Array:
    """TEXT(63) plus the BBB step, all four BBB draws taken for every row."""
    lo, hi = text_bounds(63)
    raw = rng.draws(S_CMNT, span.start, span.count, 2)
    off = unif(raw[:, 0], 0, POOL_SIZE - hi)
    ln = unif(raw[:, 1], lo, hi)
    starts = np.cumsum(ln) - ln
    data = get_pool()[np.repeat(off - starts, ln) + np.arange(int(ln.sum()), dtype=np.int64)]
    sel = unif(rng.draw(BBB_CMNT, span.start, span.count), 1, 10000)
    kind = unif(rng.draw(BBB_TYPE, span.start, span.count), 0, 100)
    noise = unif(rng.draw(BBB_JNK, span.start, span.count), 0, ln - 19)
    where = unif(rng.draw(BBB_OFFSET, span.start, span.count), 0, ln - 19 - noise)
    hit = np.flatnonzero(sel <= 10)
    if len(hit):
        at = starts[hit] + where[hit]
        data[at[:, None] + np.arange(9)] = _CUSTOMER
        at2 = at + 9 + noise[hit]
        data[at2[:, None] + np.arange(10)] = _VERDICTS[(kind[hit] >= 50).astype(np.int64)]
    return strings_from(data, ln)


def supplier(span: Span) -> pa.RecordBatch:
    """Suppliers ``span.start+1 .. span.start+span.count``."""
    return pa.RecordBatch.from_arrays(
        [
            *party_columns(span, "Supplier#", PartyStreams(S_ADDR, S_NTRG, S_PHNE, S_ABAL)),
            _comments(span),
        ],
        schema=SUPPLIER.arrow_schema,
    )
