"""o2c and ``dbbench mixed`` on Tableau Hyper, which has no indexes ("Index support is
disabled"): the engine declares it (``facts.secondary_indexes``), ``o2c prepare`` leaves out
its lookup indexes there (they only speed lookups up), and a short mixed run, ``o2c check``
and ``o2c cleanup`` then behave exactly as on the engines with indexes. An engine with
indexes (DuckDB) still gets them."""

from __future__ import annotations

from pathlib import Path

import pytest
from mixed_helpers import FAST, check_and_cleanup, load_and_prepare

from dbbench.cli import main
from dbbench.drivers.registry import open_engine
from dbbench.reports.families import read_result
from dbbench.reports.mixed.metrics import summarize_mixed
from dbbench.reports.mixed.model import MixedResult

pytest.importorskip("tableauhyperapi")

#: the five lookup indexes ``o2c prepare`` makes where the engine has indexes
O2C_INDEXES = {"ix_o2c_user", "ix_o2c_user_cust", "ix_o2c_user_part", "ix_o2c_snap_c",
               "ix_o2c_snap_ps"}  # fmt: skip


def test_hyper_prepares_without_indexes_and_runs_the_mix(tmp_path: Path) -> None:
    url = f"hyper:///{tmp_path / 'tpch.hyper'}"
    engine = open_engine(url)
    try:
        assert not engine.facts.secondary_indexes  # declared by the hyper module
        s = engine.session()
        try:  # the fact is true: Hyper refuses an index
            s.execute("CREATE TABLE probe_ix (a INTEGER)")
            with pytest.raises(Exception, match="Index support is disabled"):
                s.execute("CREATE INDEX probe_ix_a ON probe_ix (a)")
            s.execute("DROP TABLE probe_ix")
        finally:
            s.close()
    finally:
        engine.close()
    before = load_and_prepare(url, 4)  # failed here with "Index support is disabled"
    out = tmp_path / "run"
    code = main(
        ["mixed", "run", "-e", url, "-u", "2", "-S", "1", "--seed", "5", *FAST, "-o", str(out)]
    )
    _family, result, _note = read_result(out)
    assert isinstance(result, MixedResult)
    summary = summarize_mixed(result)
    assert summary.valid, [p.reasons for p in summary.points]
    assert code == 0, [p.reasons for p in summary.points]
    mixed = summary.point("mixed", 2, 1)
    assert mixed is not None and mixed.o2c is not None and mixed.streams is not None
    assert mixed.o2c.steps > 0 and mixed.o2c.errors == 0
    assert mixed.streams.queries > 0 and mixed.streams.failed == 0
    check_and_cleanup(url, before)


def test_an_engine_with_indexes_still_gets_them(tmp_path: Path) -> None:
    url = f"duckdb:///{tmp_path / 'tpch.duckdb'}"
    load_and_prepare(url, 2)
    engine = open_engine(url)
    s = engine.session()
    try:
        assert engine.facts.secondary_indexes
        names = {str(r[0]) for r in s.query("SELECT index_name FROM duckdb_indexes()").rows}
    finally:
        s.close()
        engine.close()
    assert names >= O2C_INDEXES
