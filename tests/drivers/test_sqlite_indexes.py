"""SQLite gets the secondary indexes TPC-H allows by default: its planner joins by nested
loops over indexes only, and without them Q17 and Q20 scan LINEITEM once per outer row
(at SF 0.1 both ran past 120 s; with the indexes, under a second each)."""

from __future__ import annotations

from pathlib import Path

from dbbench.drivers import ddl
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer.streams import run_rendered
from dbbench.queries.params import default_parameters
from dbbench.queries.render import render

SQL = "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%'"


def _indexes(url: str) -> tuple[set[str], str]:
    engine = open_engine(url)
    try:
        load_database(engine, 0.01)
        session = engine.session()
        names = {str(r[0]) for r in session.query(SQL).rows}
        q17 = render(17, default_parameters(0.01)[17], dialect="sqlite", stream=0)
        assert len(run_rendered(session, q17).rows) == 1
        plan = session.explain(q17.query)
        session.close()
    finally:
        engine.close()
    return names, plan


def test_the_allowed_indexes_by_default_and_none_when_turned_off(tmp_path: Path) -> None:
    expected = {f"ix_{table}_{'_'.join(cols)}" for table, cols in ddl.index_columns()}
    names, plan = _indexes(f"sqlite:///{tmp_path}/on.sqlite")
    assert names == expected
    assert "ix_lineitem_l_partkey" in plan  # Q17's correlated average looks parts up
    names, plan = _indexes(f"sqlite:///{tmp_path}/off.sqlite?indexes=false")
    assert names == set()
    assert "ix_lineitem" not in plan
