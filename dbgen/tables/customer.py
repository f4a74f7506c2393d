"""CUSTOMER (§5.6)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dbbench.dbgen import dists, rng
from dbbench.dbgen.columns import address, int64, money, padded, phone, picks, text
from dbbench.dbgen.rng import unif
from dbbench.dbgen.scale import Span
from dbbench.dbgen.schema import CUSTOMER

C_ADDR, C_NTRG, C_PHNE, C_ABAL, C_MSEG, C_CMNT = 26, 27, 28, 29, 30, 31


def customer(span: Span) -> pa.RecordBatch:
    """Customers ``span.start+1 .. span.start+span.count``."""
    n = span.count
    keys = np.arange(span.start + 1, span.start + n + 1, dtype=np.int64)
    nation = unif(rng.draw(C_NTRG, span.start, n), 0, 24)
    comment = rng.draws(C_CMNT, span.start, n, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(keys),
            padded("Customer#", keys, 9),
            address(rng.draws(C_ADDR, span.start, n, 9)),
            int64(nation),
            phone(nation, rng.draws(C_PHNE, span.start, n, 3)),
            money(unif(rng.draw(C_ABAL, span.start, n), -99999, 999999)),
            picks(dists.MSEGMNT, rng.draw(C_MSEG, span.start, n)),
            text(comment[:, 0], comment[:, 1], 73),
        ],
        schema=CUSTOMER.arrow_schema,
    )
