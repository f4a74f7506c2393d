"""Helpers of the o2c tests: the engines they run on and an independent table checksum."""

from __future__ import annotations

import hashlib

import pytest

from dbbench.drivers.registry import open_engine

SF = 0.01
ENGINES = [
    pytest.param("duckdb", id="duckdb"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
    pytest.param("mariadb", id="mariadb", marks=pytest.mark.mariadb),
    pytest.param("sqlite", id="sqlite"),
]


def table_digest(url: str) -> dict[str, str]:
    """The test's own checksum of every row of the four tables o2c writes to (independent
    of the kit's fingerprints): SHA-256 over the sorted rows."""
    engine = open_engine(url)
    s = engine.session()
    found = {}
    try:
        for table, key in (
            ("customer", "c_custkey"),
            ("partsupp", "ps_partkey, ps_suppkey"),
            ("orders", "o_orderkey"),
            ("lineitem", "l_orderkey, l_linenumber"),
        ):
            rows = s.query(f"SELECT * FROM {table} ORDER BY {key}").rows
            found[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
    finally:
        s.close()
        engine.close()
    return found
