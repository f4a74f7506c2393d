"""Small real runs shared by the studies tests (DuckDB in process, SF 0.01)."""

from __future__ import annotations

from pathlib import Path

import pytest
from studies_helpers import small_run


@pytest.fixture(scope="session")
def duckdb_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB run directory (result.json, reports), made once per test session."""
    return small_run(tmp_path_factory.mktemp("studies") / "duckdb-run")
