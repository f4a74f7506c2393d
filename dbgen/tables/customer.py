"""CUSTOMER (§5.6)."""

from __future__ import annotations

import pyarrow as pa

from dbbench.dbgen import dists, rng
from dbbench.dbgen.columns import picks, text
from dbbench.dbgen.scale import Span
from dbbench.dbgen.schema import CUSTOMER
from dbbench.dbgen.tables.party import PartyStreams, party_columns

C_ADDR, C_NTRG, C_PHNE, C_ABAL, C_MSEG, C_CMNT = 26, 27, 28, 29, 30, 31


def customer(span: Span) -> pa.RecordBatch:
    """Customers ``span.start+1 .. span.start+span.count``."""
    n = span.count
    comment = rng.draws(C_CMNT, span.start, n, 2)
    return pa.RecordBatch.from_arrays(
        [
            *party_columns(span, "Customer#", PartyStreams(C_ADDR, C_NTRG, C_PHNE, C_ABAL)),
            picks(dists.MSEGMNT, rng.draw(C_MSEG, span.start, n)),
            text(comment[:, 0], comment[:, 1], 73),
        ],
        schema=CUSTOMER.arrow_schema,
    )
