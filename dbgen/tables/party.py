"""The six leading columns CUSTOMER and SUPPLIER share (§4.2.3): key, name, address, nation,
phone and account balance, built by the same rules from each table's own random streams."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa

from dbbench.dbgen import rng
from dbbench.dbgen.columns import address, int64, money, padded, phone
from dbbench.dbgen.rng import unif
from dbbench.dbgen.scale import Span


class PartyStreams(NamedTuple):
    """A table's random streams for the shared columns."""

    address: int
    nation: int
    phone: int
    balance: int


def party_columns(span: Span, name_prefix: str, streams: PartyStreams) -> list[pa.Array]:
    """Rows ``span.start+1 .. span.start+span.count``: ``<name_prefix><key, 9 digits>``, a
    random address, nation 0..24, its phone number and a balance of -999.99 .. 9999.99."""
    n = span.count
    keys = np.arange(span.start + 1, span.start + n + 1, dtype=np.int64)
    nation = unif(rng.draw(streams.nation, span.start, n), 0, 24)
    return [
        int64(keys),
        padded(name_prefix, keys, 9),
        address(rng.draws(streams.address, span.start, n, 9)),
        int64(nation),
        phone(nation, rng.draws(streams.phone, span.start, n, 3)),
        money(unif(rng.draw(streams.balance, span.start, n), -99999, 999999)),
    ]
