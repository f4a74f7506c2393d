"""A Q15 view a stopped run left behind never blocks the next one (reliability).

Q15 creates a view ``revenue<stream>_r<run>_<token>`` and drops it inside its interval; a
run killed in between leaves it, and on PostgreSQL a view on LINEITEM makes the next load's
``DROP TABLE`` fail. The token is journaled and recorded in the database's bookkeeping; the
next benchmark drops the views it names before it loads or reuses the data.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.engine import STATE_Q15_VIEWS
from dbbench.drivers.journal import read_journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import JOURNAL_FILE

SF = "0.01"


def _views(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.views WHERE table_schema = 'public'"
        ).fetchall()
    return sorted(r[0] for r in rows)


def test_token_is_journaled_and_a_leftover_view_is_dropped_before_the_reload(
    pg_base_url: str, tmp_path: Path
) -> None:
    with fresh_postgres(pg_base_url, "dbbench_q15") as url:
        first = tmp_path / "first"
        args = ["-e", url, "-s", SF, "--runs", "1", "--streams", "1"]
        assert main(["run", *args, "-o", str(first)]) == 0
        start = next(
            e for e in read_journal(first / JOURNAL_FILE) if e["event"] == "benchmark_start"
        )
        token = start["view_token"]
        engine = open_engine(url)
        try:
            assert engine.read_state()[STATE_Q15_VIEWS] == f"{token} 1 1"
        finally:
            engine.close()
        assert _views(url) == []  # a run that ended cleanly left none

        # What a run killed inside Q15 leaves: its view, on LINEITEM, named by its token.
        leftover = f"revenue1_r1_{token}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                f"CREATE VIEW {leftover} (supplier_no, total_revenue) AS "  # type: ignore[arg-type]
                "SELECT l_suppkey, sum(l_extendedprice) FROM lineitem GROUP BY l_suppkey"
            )
        assert _views(url) == [leftover]

        second = tmp_path / "second"
        assert main(["run", *args, "--reload", "-o", str(second)]) == 0
        assert _views(url) == []
        events = list(read_journal(second / JOURNAL_FILE))
        dropped = next(e for e in events if e["event"] == "q15_views_dropped")
        assert leftover in dropped["views"]
        new_token = next(e for e in events if e["event"] == "benchmark_start")["view_token"]
        assert new_token != token
