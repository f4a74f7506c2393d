"""An engine the dialog steps cannot run on is refused in one line, before anything is
written: one without transactions (Spark's Parquet tables), or one whose SQL dialect the
steps do not know (a third-party engine declaring its own)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dbbench.drivers.engines.spark import SparkEngine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine


def test_unknown_dialect_and_non_transactional_engines_are_refused(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path / 'x.duckdb'}")
    try:
        setup.require_capable(engine)  # DuckDB can
        engine.dialect = "klingon"  # type: ignore[misc]  # as a third-party engine might
        with pytest.raises(DriversError, match="speaks SQL dialect 'klingon', which o2c's"):
            setup.prepare(engine, seed=1)
        prepared = setup.Prepared(seed=1, users=5, scale_factor=0.01, key_base=10**9)
        with pytest.raises(DriversError, match="dialect 'klingon'"):
            Simulator(engine, prepared, RunConfig(users=5))
        engine.dialect = "duckdb"  # type: ignore[misc]
        # as Spark's Parquet tables declare (and as the spark module states)
        engine.facts = replace(engine.facts, transactional=False)  # type: ignore[misc]
        assert not SparkEngine.facts.transactional
        with pytest.raises(DriversError, match="o2c needs transactions with UPDATE and DELETE"):
            setup.prepare(engine, seed=1)
        assert not list(tmp_path.glob("*.json"))
    finally:
        engine.close()
