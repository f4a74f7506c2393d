"""Every engine against the same suite, on real databases: the engines of ``conf_*.py``
(DuckDB and SQLite files, PostgreSQL and MariaDB private databases, the generic SQLAlchemy
engine, a toy engine added as one module). SF 0.01 is loaded once per engine
(``conftest.py``); the tests check counts, keys, refresh functions, state, cancellation and
lost connections.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from engine_conf import SF, Loaded

from dbbench.dbgen import api
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.errors import ConnectionLostError, DriversError, QueryCancelledError
from dbbench.drivers.loader import check_loaded


@pytest.mark.notyet(["sail"], reason="no statistics step: 'CommandNode::AnalyzeTable' (Sail)")
def test_load_counts_and_state(loaded: Loaded) -> None:
    engine = loaded.engine
    expected = {t: api.row_count(t, SF) for t in TABLES}
    assert engine.row_counts() == expected
    assert loaded.stats.rows == expected
    state = engine.read_state()
    assert state["scale_factor"] == "0.01"
    assert state["next_update_set"] == "1"
    assert float(state["load_seconds"]) > 0
    assert loaded.stats.seconds["load"] > 0
    assert {"analyze", "checkpoint"} & set(loaded.stats.seconds)
    check_loaded(engine, SF)
    with pytest.raises(DriversError, match=r"scale factor 0\.01, not 0\.1"):
        check_loaded(engine, 0.1)


def test_disclosure(loaded: Loaded) -> None:
    engine = loaded.engine
    assert engine.name == loaded.kind
    assert any(ch.isdigit() for ch in engine.version())
    assert engine.settings()
    if engine.capabilities.storage_size:
        size = engine.storage_bytes()
        assert size is not None and size > 0


def test_query_output(loaded: Loaded) -> None:
    session = loaded.engine.session()
    try:
        out = session.query("SELECT r_regionkey, r_name FROM region ORDER BY r_regionkey")
    finally:
        session.close()
    assert [c.lower() for c in out.columns] == ["r_regionkey", "r_name"]
    names = [str(name).rstrip() for _, name in out.rows]
    assert names == ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]
    assert [int(k) for k, _ in out.rows] == [0, 1, 2, 3, 4]


@pytest.mark.notyet(["spark"], reason="plain Parquet tables declare no keys")
@pytest.mark.notyet(["datafusion"], reason="DataFusion's memory tables enforce no keys")
@pytest.mark.notyet(["chdb"], reason="a ClickHouse primary key orders rows; it is not unique")
@pytest.mark.notyet(["hyper"], reason="Hyper has no keys: index support is disabled")
@pytest.mark.notyet(["sail"], reason="Delta Lake tables declare no keys")
def test_keys_are_declared(loaded: Loaded) -> None:
    session = loaded.engine.session()
    try:
        with pytest.raises(DriversError) as dup:
            session.execute("INSERT INTO region SELECT * FROM region WHERE r_regionkey = 0")
        assert "\n" not in str(dup.value)
        assert loaded.engine.row_counts()["region"] == 5
    finally:
        session.close()


@pytest.mark.notyet(["duckdb"], reason="DuckDB cannot add foreign keys to a loaded table")
@pytest.mark.notimpl(["sqlite"], reason="SQLite checks foreign keys only after a PRAGMA")
@pytest.mark.notyet(["spark"], reason="plain Parquet tables declare no keys")
@pytest.mark.notyet(["datafusion"], reason="DataFusion's memory tables enforce no keys")
@pytest.mark.notyet(["polars"], reason="Polars SQL has no INSERT or DELETE (frames, no keys)")
@pytest.mark.notyet(["chdb"], reason="ClickHouse has no foreign keys")
@pytest.mark.notyet(["hyper"], reason="Hyper has no keys: index support is disabled")
@pytest.mark.notyet(["sail"], reason="Delta Lake tables declare no keys")
def test_foreign_keys_are_enforced(loaded: Loaded) -> None:
    session = loaded.engine.session()
    try:
        with pytest.raises(DriversError):
            session.execute("INSERT INTO nation VALUES (99, 'NOWHERE', 77, 'no region')")
    finally:
        session.execute("DELETE FROM nation WHERE n_nationkey = 99")  # where it got in
        session.close()
    assert loaded.engine.row_counts()["nation"] == 25


def _table(batches: object) -> pa.Table:
    return pa.Table.from_batches(list(batches))  # type: ignore[call-overload]


def test_refresh_functions_change_counts_as_predicted(loaded: Loaded) -> None:
    engine = loaded.engine
    before = engine.row_counts()
    orders = _table(api.update_batches("orders", SF, 1))
    lineitem = _table(api.update_batches("lineitem", SF, 1))
    keys = np.asarray(api.delete_keys(SF, 1))
    base_lines = _table(api.table_batches("lineitem", SF))
    doomed_lines = int(pc.sum(pc.is_in(base_lines["l_orderkey"], pa.array(keys))).as_py())
    assert orders.num_rows == len(keys) == api.rows_per_update_set(SF)

    session = engine.session()
    try:
        assert session.refresh_insert(orders, lineitem) == orders.num_rows + lineitem.num_rows
        middle = engine.row_counts()
        assert middle["orders"] == before["orders"] + orders.num_rows
        assert middle["lineitem"] == before["lineitem"] + lineitem.num_rows
        assert session.refresh_delete(keys.tolist()) == len(keys) + doomed_lines
    finally:
        session.close()
    after = engine.row_counts()
    assert after["orders"] == before["orders"]
    assert after["lineitem"] == before["lineitem"] + lineitem.num_rows - doomed_lines
    assert {t: after[t] for t in ("part", "customer")} == {
        t: before[t] for t in ("part", "customer")
    }
    _put_back(loaded, orders, keys)
    assert engine.row_counts() == before


def _put_back(loaded: Loaded, inserted: pa.Table, deleted: np.ndarray) -> None:
    """The database as it was loaded (the other tests share it): the refresh functions
    themselves delete the new orders and insert the deleted ones again."""
    wanted = pa.array(deleted)
    orders = _table(api.table_batches("orders", SF))
    lineitem = _table(api.table_batches("lineitem", SF))
    session = loaded.engine.session()
    try:
        session.refresh_delete(inserted["o_orderkey"].to_pylist())
        session.refresh_insert(
            orders.filter(pc.is_in(orders["o_orderkey"], wanted)),
            lineitem.filter(pc.is_in(lineitem["l_orderkey"], wanted)),
        )
    finally:
        session.close()


def test_state_round_trip(loaded: Loaded) -> None:
    engine = loaded.engine
    engine.write_state({"next_update_set": "7", "note": "it's committed"})
    # A second engine on the same database proves the state was committed.
    other = loaded.conf.open(loaded.url) if loaded.conf.can_reopen else engine
    try:
        state = other.read_state()
    finally:
        if other is not engine:
            other.close()
        engine.write_state({"next_update_set": "1"})  # as loaded (the engine is shared)
    assert state["next_update_set"] == "7"
    assert state["note"] == "it's committed"
    assert state["scale_factor"] == "0.01"


@pytest.mark.notimpl(["sqlalchemy"], reason="no portable way to cancel; declared, not guessed")
@pytest.mark.notyet(["datafusion"], reason="its Python bindings cannot stop a running query")
@pytest.mark.notyet(["polars"], reason="cancel() returns, but a running join goes on")
def test_cancel_stops_a_running_statement(loaded: Loaded) -> None:
    assert loaded.engine.capabilities.cancel
    session = loaded.engine.session()
    caught: list[BaseException] = []

    def run() -> None:
        try:
            session.query(loaded.conf.slow_query)
        except BaseException as exc:
            caught.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    try:
        time.sleep(1.0)
        session.cancel()
        worker.join(timeout=30)
        assert not worker.is_alive(), "cancel did not stop the statement"
        assert len(caught) == 1 and isinstance(caught[0], QueryCancelledError), caught
        assert session.query("SELECT 1").rows[0][0] == 1  # the session is still usable
    finally:
        session.close()


def test_a_lost_connection_is_its_own_one_line_error(loaded: Loaded) -> None:
    if loaded.conf.kill_connection is None:
        pytest.skip(f"{loaded.kind} runs in process: there is no server connection to lose")
    session_id, kill = loaded.conf.kill_connection
    victim = loaded.engine.session()
    try:
        victim_id = victim.query(session_id).rows[0][0]
        killer = loaded.engine.session()
        try:
            killer.execute(kill.format(id=victim_id))
        finally:
            killer.close()
        with pytest.raises(ConnectionLostError) as info:
            victim.query("SELECT 1")
        assert "\n" not in str(info.value)
    finally:
        victim.close()
