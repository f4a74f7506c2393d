"""Two benchmarks never share a database or a run directory (issue: reliability, item 6).

A running benchmark holds a lock in the database (PostgreSQL advisory lock, MariaDB named
lock; DuckDB locks its file itself) and on its run directory; a second one gets one line
naming the holder. Default run-directory names cannot collide.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.cli import main
from dbbench.commands.o2c import _out as o2c_out
from dbbench.commands.run import _out_dir
from dbbench.drivers.hammerdb.flow import default_run_dir as hammerdb_dir
from dbbench.drivers.journal import read_journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.rundir import RUNS_FOLDER, default_run_name, run_stamp
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.errors import ExitCode
from dbbench.reports.tpch.model import BenchmarkResult

SF = "0.01"


def _second_run_is_refused(url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A benchmark (its engine's lock) is running on ``url``: ``run`` must refuse at once."""
    holder = open_engine(url)
    try:
        holder.lock_benchmark()
        code = main(["run", "-e", url, "-s", SF, "-o", str(tmp_path / "second")])
        err = capsys.readouterr().err
    finally:
        holder.close()
    assert code == ExitCode.USER_ERROR, err
    assert err.startswith("dbbench: error: another dbbench run is using database ")
    assert err.count("\n") == 1
    assert not (tmp_path / "second").exists()
    return err


@pytest.mark.postgresql
def test_two_runs_on_one_postgresql_database(
    pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_postgres(pg_base_url, "dbbench_lock") as url:
        err = _second_run_is_refused(url, tmp_path, capsys)
        assert "PostgreSQL backend " in err
        # the lock goes with the connection: the next run gets it
        assert main(["load", "-e", url, "-s", SF, "-o", str(tmp_path / "after")]) == 0


@pytest.mark.mariadb
def test_two_runs_on_one_mariadb_database(
    mariadb_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_mariadb(mariadb_base_url, "dbbench_lock") as url:
        err = _second_run_is_refused(url, tmp_path, capsys)
        assert "MariaDB/MySQL connection " in err


def test_two_runs_with_one_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first run (SQLite without its secondary indexes, slow enough) is under way in DIR;
    ``run -o DIR --force`` on another database must neither replace DIR nor interleave with
    its journal."""
    out = tmp_path / "run"
    slow = f"sqlite:///{tmp_path / 'a.sqlite'}?indexes=false"
    first = subprocess.Popen(
        [sys.executable, "-m", "dbbench", "run", "-e", slow,
         "-s", SF, "-o", str(out), "--runs", "1", "--streams", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not (out / JOURNAL_FILE).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    url = f"sqlite:///{tmp_path / 'b.sqlite'}"
    code = main(["run", "-e", url, "-s", SF, "-o", str(out), "--force"])
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    assert err == (
        f"dbbench: error: run directory {out} is in use by another dbbench run "
        f"(pid {first.pid}); wait for it or choose another --out\n"
    )
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    assert BenchmarkResult.read(out / RESULT_FILE).status == "complete"
    starts = [e for e in read_journal(out / JOURNAL_FILE) if e["event"] == "benchmark_start"]
    assert len(starts) == 1
    # once the first has ended, the directory may be replaced
    assert main(["load", "-e", url, "-s", SF, "-o", str(out), "--force"]) == 0


def test_default_run_directory_names_cannot_collide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _out_dir(None, "duckdb", 0.01)
    time.sleep(0.002)
    second = _out_dir(None, "duckdb", 0.01)
    assert first != second  # milliseconds: one process, one run after the other
    assert first.name.endswith(f"-{os.getpid()}")  # and two processes at once differ
    # an engine string that is a path does not become a folder (issue item 11)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "-e", "some/path", "-s", SF]) == ExitCode.USER_ERROR
    assert list(tmp_path.iterdir()) == []  # no runs/ folder either


def test_one_namer_names_every_default_run() -> None:
    """Every command's default run name comes from one namer with one timestamp format."""
    stamp = rf"\d{{8}}-\d{{6}}\.\d{{3}}-{os.getpid()}"
    assert re.fullmatch(rf"duckdb-sf0\.01-{stamp}", _out_dir(None, "duckdb", 0.01).name)
    assert re.fullmatch(rf"o2c-run-{stamp}\.json", o2c_out(None, "run").name)
    assert re.fullmatch(rf"hammerdb-tprocc-duckdb-{stamp}", hammerdb_dir("tprocc", "duckdb").name)
    assert re.fullmatch(rf"mixed-run-{stamp}", default_run_name("mixed", "run").name)
    assert {p.parent for p in (_out_dir(None, "x", 1), o2c_out(None, "scale"))} == {RUNS_FOLDER}
    # one clock reading: the seconds and the milliseconds never come from two readings
    assert run_stamp(1_000_000.999).split("-")[1].endswith(".999")
