"""``dbbench run`` from end to end at SF 0.01 with S = 2, on every engine family.

For each engine: a load, then two consecutive ``run`` invocations on the same database.
Checked: 24 power intervals, 22·S throughput queries and 2·S+2 refresh intervals per run,
update sets 1..2(S+1) then 2(S+1)+1..4(S+1) (never one twice, across invocations), and the
row counts after the refresh functions exactly as the generated update sets predict.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.cli import main
from dbbench.dbgen import api
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.reports.tpch.compliance import messages
from dbbench.reports.tpch.model import BenchmarkResult, RunResult

SF = 0.01
S = 2
SETS_PER_INVOCATION = 2 * (S + 1)


@pytest.fixture(
    params=[
        "duckdb",
        pytest.param("postgresql", marks=pytest.mark.postgresql),
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        "sqlite",
    ]
)
def engine_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    kind = request.param
    if kind == "duckdb":
        yield f"duckdb:///{tmp_path / 'bench.duckdb'}"
    elif kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'bench.sqlite'}"
    elif kind == "postgresql":
        with fresh_postgres(request.getfixturevalue("pg_base_url"), "dbbench_e2e") as url:
            yield url
    else:
        with fresh_mariadb(request.getfixturevalue("mariadb_base_url"), "dbbench_e2e") as url:
            yield url


def dbbench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def expected_counts(sets: range) -> tuple[int, int]:
    """ORDERS and LINEITEM rows after RF1/RF2 of ``sets``, from the generator alone."""
    base = np.concatenate(
        [b.column("l_orderkey").to_numpy() for b in api.table_batches("lineitem", SF)]
    )
    deleted = np.concatenate([api.delete_keys(SF, n) for n in sets])
    inserted = sum(b.num_rows for n in sets for b in api.update_batches("lineitem", SF, n))
    # every set deletes as many orders as it inserts
    return api.row_count("orders", SF), len(base) - int(np.isin(base, deleted).sum()) + inserted


def check_run(run: RunResult, first_set: int) -> None:
    kinds = Counter((i.phase, i.kind) for i in run.intervals)
    assert kinds[("power", "query")] + kinds[("power", "rf1")] + kinds[("power", "rf2")] == 24
    assert kinds[("throughput", "query")] == 22 * S
    refresh = sum(n for (_, kind), n in kinds.items() if kind != "query")
    assert refresh == 2 * S + 2
    failed = [i for i in run.intervals if i.status != "ok"]
    assert not failed, f"first failed interval: {failed[0]}"
    assert run.update_sets == list(range(first_set, first_set + S + 1))
    for stream in range(1, S + 1):
        positions = [i.position for i in run.intervals if i.stream == stream and i.kind == "query"]
        assert sorted(positions) == list(range(1, 23)), f"stream {stream} is incomplete"
    assert run.power_start is not None and run.power_end is not None
    assert run.throughput_start is not None and run.throughput_end is not None
    assert run.power_end <= run.throughput_start
    assert run.seeds["1"] == run.seeds["0"] + 1 and len(run.params) == S + 1


def check_invocation(out_dir: Path, first_set: int) -> BenchmarkResult:
    result = BenchmarkResult.read(out_dir / RESULT_FILE)
    assert result.status == "complete" and result.errors == []
    assert [r.number for r in result.runs] == [1, 2]
    for k, run in enumerate(result.runs):
        check_run(run, first_set + k * (S + 1))
    assert not result.compliance.compliant
    assert messages(result.compliance)[0].startswith("scale factor 0.01 is not an official")
    assert result.compliance.codes[0] == "sf-not-official"
    events = [json.loads(line) for line in (out_dir / JOURNAL_FILE).read_text().splitlines()]
    ends = [e for e in events if e["event"] == "query_end"]
    assert len(ends) == 2 * 22 * (S + 1)  # the journal holds every measured query
    assert events[-1]["event"] == "benchmark_end"
    return result


def test_two_consecutive_runs_on_one_database(
    engine_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = dbbench(
        capsys, "load", "-e", engine_url, "-s", str(SF), "-o", str(tmp_path / "load")
    )
    assert code == 0, err
    load = BenchmarkResult.read(tmp_path / "load" / RESULT_FILE)
    assert load.load is not None and not load.load.reused and load.load.rows["orders"] == 15000

    for invocation in (1, 2):
        out_dir = tmp_path / f"run{invocation}"
        args = ["run", "-e", engine_url, "-s", str(SF), "--streams", str(S), "-o", str(out_dir)]
        code, out, err = dbbench(capsys, *args)
        assert code == 0, err
        assert f"result: {out_dir / RESULT_FILE}" in out
        first = 1 + (invocation - 1) * SETS_PER_INVOCATION
        result = check_invocation(out_dir, first)
        assert result.load is not None and result.load.reused
        assert any("reused" in r for r in messages(result.compliance))

        engine = open_engine(engine_url)
        try:
            counts = engine.row_counts()
            state = engine.read_state()
        finally:
            engine.close()
        orders, lineitem = expected_counts(range(1, first + SETS_PER_INVOCATION))
        assert (counts["orders"], counts["lineitem"]) == (orders, lineitem)
        assert state["next_update_set"] == str(first + SETS_PER_INVOCATION)


def test_default_duckdb_run_loads_into_the_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "run"
    code, _, err = dbbench(capsys, "run", "-s", str(SF), "-o", str(out_dir))
    assert code == 0, err
    result = check_invocation(out_dir, 1)
    assert result.load is not None and not result.load.reused and result.load.seconds > 0
    assert set(result.load.rows) == {
        "region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"
    }  # fmt: skip
    assert (out_dir / "tpch.duckdb").is_file()
    with duckdb.connect(str(out_dir / "tpch.duckdb"), read_only=True) as con:
        # every Q15 (its view is named per stream and run) dropped its view again
        assert con.sql("select view_name from duckdb_views() where not internal").fetchall() == []
    assert result.engine.name == "duckdb" and result.engine.version
    assert result.system.python and result.config["streams"] == S
    # run 1 took seed0 from the end of the load (mmddhhmmss, clause 2.1.3.3)
    assert 101000000 <= result.runs[0].seeds["0"] <= 1231235959
    assert "not compliant" in err
