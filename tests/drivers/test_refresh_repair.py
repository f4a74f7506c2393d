"""A refresh pair is never left half-applied unnoticed (issue: reliability, item 3).

The database records which refresh function of which update set is in progress; a run that
finds a half-applied pair completes it (RF2 pending) or undoes it by key (RF1 pending), says
so in the compliance section, and the reuse check is exact. RF2 never runs for a set whose
RF1 did not complete. Faults for real: SIGINT between RF1 and RF2 (SQLite, whose power-test
queries are slow enough to be caught), a key violation part-way through a batched RF1.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import psycopg
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.dbgen import api as dbgen
from dbbench.drivers.engine import STATE_REFRESH_PENDING
from dbbench.drivers.errors import DriversError
from dbbench.drivers.journal import read_journal
from dbbench.drivers.loader import check_loaded
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.errors import ExitCode
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.reasons import message

SF = "0.01"


def state_and_counts(url: str) -> tuple[dict[str, str], dict[str, int]]:
    engine = open_engine(url)
    try:
        return engine.read_state(), engine.row_counts()
    finally:
        engine.close()


def lineitem_after(sets: list[int]) -> int:
    """LINEITEM's exact count after the complete pairs of ``sets``, from the generator
    alone: the base rows, plus RF1's line items, minus those of the orders RF2 deletes."""
    sf = float(SF)
    base = pa.concat_tables(
        pa.Table.from_batches([b]) for b in dbgen.table_batches("lineitem", sf)
    ).column("l_orderkey")
    count = len(base)
    for n in sets:
        count += sum(b.num_rows for b in dbgen.update_batches("lineitem", sf, n))
        deleted = pa.array(dbgen.delete_keys(sf, n))
        count -= pc.sum(pc.is_in(base, value_set=deleted)).as_py()
    return count


def wait_for(journal: Path, event: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dbbench ended before {event}: {proc.communicate()}")
        if journal.exists() and any(e["event"] == event for e in read_journal(journal)):
            return
        time.sleep(0.005)
    raise AssertionError(f"no {event} in {journal}")


def test_interrupted_between_rf1_and_rf2_is_completed_by_the_next_run(tmp_path: Path) -> None:
    # without SQLite's secondary indexes: the power test's 22 queries between RF1 and RF2
    # take long enough for the Ctrl-C to land between them
    url = f"sqlite:///{tmp_path / 'bench.sqlite'}?indexes=false"
    assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "load")]) == 0
    base = state_and_counts(url)[1]
    out = tmp_path / "run"
    env = {**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"}
    args = ["run", "-e", url, "-s", SF, "-o", str(out), "--runs", "1", "--streams", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    wait_for(out / JOURNAL_FILE, "rf1_end", proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert not any(e["event"] == "rf2_end" for e in read_journal(out / JOURNAL_FILE))
    state, counts = state_and_counts(url)
    assert state[STATE_REFRESH_PENDING] == "1 rf2"
    assert counts["orders"] == base["orders"] + dbgen.rows_per_update_set(float(SF))
    with pytest.raises(DriversError, match="update set 1 rf2 was left half-applied"):
        engine = open_engine(url)
        try:
            check_loaded(engine, float(SF))
        finally:
            engine.close()

    # the next invocation completes RF2 of set 1 by key, says so, and goes on with set 2
    again = tmp_path / "again"
    assert main(["power", "-e", url, "-s", SF, "-o", str(again)]) == 0
    result = BenchmarkResult.read(again / RESULT_FILE)
    assert any(
        "update set 1 was left half-applied" in r and "RF2 had not completed" in r
        for r in map(message, result.compliance.reasons)
    ), [message(r) for r in result.compliance.reasons]
    assert result.runs[0].update_sets == [2]
    state, counts = state_and_counts(url)
    assert state[STATE_REFRESH_PENDING] == ""
    assert {**counts, "lineitem": 0} == {**base, "lineitem": 0}
    assert counts["lineitem"] == lineitem_after([1, 2]) == int(state["lineitem_rows"])


@pytest.mark.postgresql
def test_a_failed_batched_rf1_is_undone_by_key_and_rf2_never_runs(
    pg_base_url: str, tmp_path: Path
) -> None:
    """``refresh_batch=4`` commits RF1 four orders at a time; a trigger refusing the 9th
    new key makes the third batch fail, after two batches committed."""
    with fresh_postgres(pg_base_url, "dbbench_rf") as plain:
        url = f"{plain}?refresh_batch=4"
        assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "load")]) == 0
        base = state_and_counts(url)[1]
        new_keys = sorted(
            int(k) for b in dbgen.update_batches("orders", float(SF), 1) for k in b["o_orderkey"]
        )
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF NEW.o_orderkey = {new_keys[8]} THEN RAISE EXCEPTION 'disk full'; END IF;"
                " RETURN NEW; END $$"
            )
            conn.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON orders FOR EACH ROW "
                "EXECUTE FUNCTION refuse()"
            )
        out = tmp_path / "run"
        code = main(["power", "-e", url, "-s", SF, "-o", str(out)])
        assert code == ExitCode.INVALID_RUN
        result = BenchmarkResult.read(out / RESULT_FILE)
        kinds = {(i.kind, i.status) for i in result.runs[0].intervals if i.kind != "query"}
        assert kinds == {("rf1", "error")}  # and no RF2 at all
        assert any("RF2 of update set 1 was not run" in e for e in result.errors)
        state, counts = state_and_counts(url)
        assert state[STATE_REFRESH_PENDING] == "1 rf1"
        assert counts["orders"] == base["orders"] + 8  # two batches committed
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute("DROP TRIGGER refuse ON orders")

        again = tmp_path / "again"
        assert main(["power", "-e", url, "-s", SF, "-o", str(again)]) == 0
        result = BenchmarkResult.read(again / RESULT_FILE)
        assert any("RF1 had not completed" in r for r in map(message, result.compliance.reasons))
        assert result.runs[0].update_sets == [2]
        state, counts = state_and_counts(url)
        assert state[STATE_REFRESH_PENDING] == ""
        assert {**counts, "lineitem": 0} == {**base, "lineitem": 0}
        assert counts["lineitem"] == lineitem_after([2]) == int(state["lineitem_rows"])


def test_reuse_check_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One order too many (well inside the old 1 % tolerance) is refused."""
    db = tmp_path / "bench.duckdb"
    url = f"duckdb:///{db}"
    assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "load")]) == 0
    with duckdb.connect(str(db)) as conn:
        conn.execute(
            "INSERT INTO orders SELECT o_orderkey + 100000000, * EXCLUDE (o_orderkey)"
            " FROM orders LIMIT 1"
        )
    capsys.readouterr()
    assert main(["power", "-e", url, "-s", SF, "-o", str(tmp_path / "p")]) == ExitCode.USER_ERROR
    assert "table orders has 15001 rows, expected 15000" in capsys.readouterr().err
