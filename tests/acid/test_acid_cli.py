"""`dbbench acid` on the command line: its exit codes and one-line errors, and Ctrl-C
(SIGINT to a subprocess) in the middle of the tests, which leaves the database without
HISTORY and with every row as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from dbbench.cli import main
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine

SF = 0.01


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A DuckDB file loaded at SF 0.01 by the kit (``acid`` reuses it at that SF)."""
    path = tmp_path_factory.mktemp("acidcli") / "tpch.duckdb"
    engine = open_engine(f"duckdb:///{path}")
    try:
        load_database(engine, SF)
    finally:
        engine.close()
    yield path


def _fingerprint(path: Path) -> tuple[object, ...]:
    """Every value the ACID Transaction changes, summed, and whether HISTORY exists."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        lines = con.execute(
            "SELECT sum(l_quantity), sum(l_extendedprice), count(*) FROM lineitem"
        ).fetchone()
        orders = con.execute("SELECT sum(o_totalprice), count(*) FROM orders").fetchone()
        history = con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'history'"
        ).fetchone()
    finally:
        con.close()
    assert lines is not None and orders is not None and history is not None
    return (*lines, *orders, history[0])


def test_a_passing_run_exits_0_and_leaves_the_rows_as_they_were(
    loaded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _fingerprint(loaded)
    args = ["acid", "-e", f"duckdb:///{loaded}", "-s", str(SF), "--streams", "1"]
    code = main([*args, "--transactions", "5", "-o", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "ACID: passed (tests atomicity-commit" in out
    assert "acid: isolation-6" in err and "acid: durability" in err
    assert (tmp_path / "run" / "result.json").is_file()
    assert _fingerprint(loaded) == before  # rows restored, HISTORY dropped
    # a TPC-H run given that ACID result: the verdict in its result and its reports
    tpch = tmp_path / "tpch"
    code = main(
        ["run", "-e", f"duckdb:///{tmp_path / 'tpch.duckdb'}", "-s", str(SF), "--runs", "1",
         "--streams", "1", "--telemetry-interval", "0", "--plans", "off", "--no-answers",
         "-o", str(tpch), "--acid", str(tmp_path / "run")]
    )  # fmt: skip
    _out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads((tpch / "result.json").read_text())
    assert data["acid"]["verdict"] == "passed"
    assert "ACID: passed (tests atomicity-commit" in (tpch / "report.md").read_text()


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--kill", "kill -9 1"], "durability: give both --kill and --restart, or neither"),
        (["--streams", "0"], "--streams"),
        (["-e", "nosuchengine://x/y"], "nosuchengine"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(
    extra: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["acid", "-s", str(SF), "-o", str(tmp_path / "run"), *extra])
    _out, err = capsys.readouterr()
    assert code != 0
    assert says in err
    assert "Traceback" not in err
    if says.startswith("durability"):
        assert code == 1 and err.count("\n") == 1
        assert not (tmp_path / "run").exists()  # refused before anything ran


def test_ctrl_c_mid_test_restores_the_rows_and_drops_history(loaded: Path, tmp_path: Path) -> None:
    before = _fingerprint(loaded)
    args = ["acid", "-e", f"duckdb:///{loaded}", "-s", str(SF), "--streams", "2"]
    args += ["--transactions", "2000", "-o", str(tmp_path / "run")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
    )  # fmt: skip
    assert proc.stderr is not None
    # the kit's own marker that the streams' commits are under way (the first of 3 x 2,000,
    # which take far longer than the Ctrl-C): no sleep that a busy machine outruns
    marker = "acid: consistency: 1 of 6000 ACID Transactions committed"
    seen = ""
    deadline = time.monotonic() + 300
    while marker not in seen and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
    assert marker in seen, seen
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, seen + err
    assert "cleanup:" not in err  # nothing it could not restore
    assert _fingerprint(loaded) == before, err
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result["status"] == "partial" and "interrupted" in result["errors"]
    assert [c["name"] for c in result["checks"]] == ["atomicity-commit", "atomicity-rollback"]
