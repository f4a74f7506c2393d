"""All eight SF1 tables reproduce the published SHA-1 checksums (tpch.md §9)."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest
from dbgen_testlib import table_sha1

SF1_SHA1 = {
    "customer": "bee45e9c240e87d63786324696b1babad18a5e0b",
    "lineitem": "4802b21c9975d965aa11893214a879df0d8d9e01",
    "nation": "f361dffd3d927f5aa64e71cff91458fb5ea1315f",
    "orders": "00d790a08a116feec992cea14272a4f1e5c55925",
    "part": "06615f7433806c06162af49c7bc27166c64a31d6",
    "partsupp": "db0fcb935904765a9085505b5feb5260752f8bf3",
    "region": "ac61de9604337e791f1bdbcef8f0cdcc21b01514",
    "supplier": "baad047476a2720d99b707b6f7a7c9e50c170d5a",
}
SF1_LINES = {
    "customer": 150_000,
    "lineitem": 6_001_215,
    "nation": 25,
    "orders": 1_500_000,
    "part": 200_000,
    "partsupp": 800_000,
    "region": 5,
    "supplier": 10_000,
}


@pytest.mark.slow
def test_sf1_checksums() -> None:
    # lineitem alone is about as long as the seven others together: two processes.
    order = ["lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region"]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        results = list(pool.map(table_sha1, order, [1.0] * len(order)))
    wrong = [
        f"{t}: sha1 {sha} lines {n}, expected {SF1_SHA1[t]} lines {SF1_LINES[t]}"
        for t, sha, n in results
        if sha != SF1_SHA1[t] or n != SF1_LINES[t]
    ]
    assert not wrong, "\n".join(wrong)
