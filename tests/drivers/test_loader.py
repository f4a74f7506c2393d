"""The loader's data path: worker processes, part order, progress, reuse checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbgen import api
from dbgen.schema import TABLES
from drivers import loader
from drivers.errors import DriversError
from drivers.loader import check_loaded, load_database
from drivers.registry import open_engine

SF = 0.01
CHECKSUM = (
    "SELECT COUNT(*), SUM(l_orderkey * 7 + l_linenumber), SUM(l_extendedprice), "
    "MIN(l_comment), MAX(l_shipdate) FROM lineitem"
)


def _inline_checksum() -> tuple[object, ...]:
    engine = open_engine("duckdb")
    try:
        load_database(engine, SF, jobs=1)
        return engine.session().query(CHECKSUM).rows[0]
    finally:
        engine.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("url", ["duckdb", "sqlite://"])
def test_worker_processes_deliver_every_part_in_order(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small parts force many of them through worker processes; DuckDB loads tables in
    parallel, SQLite one at a time (the dispatch order must not deadlock either way)."""
    monkeypatch.setattr(loader, "PROCESS_MIN_ROWS", 0)
    monkeypatch.setattr(loader, "ROWS_PER_PART", 4000)
    seen: dict[str, list[int]] = {}

    def progress(table: str, done: int, total: int) -> None:
        seen.setdefault(table, []).append(done)
        assert total == api.row_count(table, SF)

    engine = open_engine(url)
    try:
        stats = load_database(engine, SF, jobs=2, progress=progress)
        assert engine.row_counts() == {t: api.row_count(t, SF) for t in TABLES}
        assert stats.rows == engine.row_counts()
        keys = [r[0] for r in engine.session().query("SELECT o_orderkey FROM orders").rows]
        if url == "duckdb":  # DuckDB keeps insertion order: parts arrived in order
            assert keys == sorted(keys)
            assert engine.session().query(CHECKSUM).rows[0] == _inline_checksum()
    finally:
        engine.close()
    for table, dones in seen.items():
        assert dones == sorted(dones)
        assert dones[-1] == api.row_count(table, SF)
    assert set(seen) == set(TABLES)


def test_check_loaded_refuses_foreign_or_damaged_databases(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path}/x.db")
    try:
        with pytest.raises(DriversError, match="not loaded by dbbench"):
            check_loaded(engine, SF)
        load_database(engine, SF)
        check_loaded(engine, SF)
        engine.session().execute("DELETE FROM nation WHERE n_nationkey = 3")
        with pytest.raises(DriversError, match="table nation has 24 rows, expected 25"):
            check_loaded(engine, SF)
    finally:
        engine.close()


def test_load_replaces_an_earlier_load(tmp_path: Path) -> None:
    """Loading twice drops the first copy: counts are not doubled, the state is fresh."""
    engine = open_engine(f"sqlite:///{tmp_path}/x.db")
    try:
        load_database(engine, SF)
        engine.write_state({"next_update_set": "5"})
        load_database(engine, SF)
        assert engine.row_counts()["lineitem"] == api.row_count("lineitem", SF)
        assert engine.read_state()["next_update_set"] == "1"
    finally:
        engine.close()


def test_bad_scale_factor_is_a_one_line_error() -> None:
    engine = open_engine("duckdb")
    try:
        with pytest.raises(Exception, match="scale factor") as info:
            load_database(engine, -1)
        assert "\n" not in str(info.value)
    finally:
        engine.close()
