"""DuckDB, file database with primary keys: the reference of the cross-engine query checks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf


class TestConf(EngineTestConf):
    name = "duckdb"
    slow_query = "SELECT sum(a.range * b.range) FROM range(100000000) a, range(100000000) b"
    can_reopen = False  # one DuckDB file, one database instance per process
    reference = True

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        yield f"duckdb:///{folder / 'bench.duckdb'}?keys=true"
