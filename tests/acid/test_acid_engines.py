"""`dbbench acid`'s tests on real engines at a small SF: every test passes on a
transactional engine (durability too where the kit can kill the engine's process: a file
database embedded in it); on a server it did not start the result is "incomplete",
durability named as not run, never "passed"; an engine without transactions is "not
supported", never a pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dbbench.drivers.acid.workload import run_acid
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.acid.render import render
from dbbench.reports.families import read_result

SF = 0.01


def _summary(text: str) -> str:
    """The report's one-line verdict (``ACID: ...``)."""
    return next(line.strip() for line in text.splitlines() if line.strip().startswith("ACID:"))


def _check(result_dir: Path, url: str, durable: bool = True) -> None:
    result = run_acid(url, SF, result_dir, streams=1, per_stream=10)
    failed = [(c.name, c.message) for c in result.checks if c.verdict != "passed"]
    assert not failed, failed
    names = [c.name for c in result.checks]
    assert names[:3] == ["atomicity-commit", "atomicity-rollback", "consistency"]
    assert "isolation-6" in names
    if durable:
        assert result.verdict == "passed"
        assert names[-1] == "durability"
        assert list(result.failures_exercised) == ["system crash (process or server killed)"]
        assert "ACID: passed" in render(result, "text")
    else:
        assert result.verdict == "incomplete"
        assert "durability" not in names
        summary = _summary(render(result, "text"))
        assert summary.startswith("ACID: incomplete (passed atomicity-commit")
        assert "not run: durability (the kit cannot crash a server it did not start" in summary
        assert "passed" not in summary.split("not run:")[1]
    for fmt in ("md", "html", "json"):
        assert "isolation-3" in render(result, fmt)
    family, again, _ = read_result(result_dir / "result.json")
    assert family.name == "dbbench-acid-result"
    assert again.verdict == result.verdict


def test_duckdb(tmp_path: Path) -> None:
    _check(tmp_path / "run", f"duckdb:///{tmp_path / 'acid.duckdb'}")


def test_sqlite(tmp_path: Path) -> None:
    _check(tmp_path / "run", f"sqlite:///{tmp_path / 'acid.sqlite'}")


def test_engine_without_transactions_is_not_supported(tmp_path: Path) -> None:
    pytest.importorskip("polars")
    result = run_acid("polars", SF, tmp_path / "run", streams=1, per_stream=1)
    assert result.verdict == "not supported"
    assert "not supported" in render(result, "text")
    assert not result.checks


def test_postgresql(tmp_path: Path, pg_base_url: str) -> None:
    from private_databases import fresh_postgres

    with fresh_postgres(pg_base_url, "dbbench_acid") as url:
        _check(tmp_path / "run", url, durable=False)


def test_mariadb(tmp_path: Path, mariadb_base_url: str) -> None:
    from private_databases import fresh_mariadb

    with fresh_mariadb(mariadb_base_url, "dbbench_acid") as url:
        _check(tmp_path / "run", url, durable=False)


def test_hyper(tmp_path: Path) -> None:
    pytest.importorskip("tableauhyperapi")
    _check(tmp_path / "run", f"hyper:///{tmp_path / 'acid.hyper'}")


@pytest.mark.parametrize("engine", ["chdb", "datafusion"])
def test_other_engines_without_transactions_are_not_supported(engine: str, tmp_path: Path) -> None:
    """In a process of its own: chDB's embedded server takes one folder a process, and an
    earlier test of this worker may have opened another."""
    pytest.importorskip(engine)
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "dbbench", "acid", "-e", engine, "-s", str(SF), "-o", str(out)]
    done = subprocess.run([*cmd, "--streams", "1"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    _family, result, _ = read_result(out)
    assert isinstance(result, AcidResult)
    assert result.verdict == "not supported"
    assert _summary(render(result, "text")).startswith("ACID: not supported (")
