"""REGION and NATION: fixed rows with random comments (tpch.md §5.6)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dbbench.dbgen import arrow, dists, rng
from dbbench.dbgen.columns import int64, text
from dbbench.dbgen.schema import NATION, REGION

N_CMNT, R_CMNT = 41, 42


def region() -> pa.RecordBatch:
    raw = rng.draws(R_CMNT, 0, 5, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(np.arange(5)),
            arrow.strings(dists.REGIONS.values),
            text(raw[:, 0], raw[:, 1], 72),
        ],
        schema=REGION.arrow_schema,
    )


def nation() -> pa.RecordBatch:
    raw = rng.draws(N_CMNT, 0, 25, 2)
    return pa.RecordBatch.from_arrays(
        [
            int64(np.arange(25)),
            arrow.strings(dists.NATIONS.values),
            int64(np.asarray(dists.region_keys_of_nations())),
            text(raw[:, 0], raw[:, 1], 72),
        ],
        schema=NATION.arrow_schema,
    )
