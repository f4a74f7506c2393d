"""SQLite through SQLAlchemy, a file database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf


class TestConf(EngineTestConf):
    name = "sqlite"
    slow_query = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    )

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        yield f"sqlite:///{folder / 'bench.sqlite'}"
