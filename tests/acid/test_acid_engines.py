"""`dbbench acid`'s tests on real engines at a small SF: every test passes on a
transactional engine; an engine without transactions is "not supported", never a pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbbench.drivers.acid.workload import run_acid
from dbbench.reports.acid.render import render
from dbbench.reports.families import read_result

SF = 0.01


def _check(result_dir: Path, url: str) -> None:
    result = run_acid(url, SF, result_dir, streams=1, per_stream=10)
    failed = [(c.name, c.message) for c in result.checks if c.verdict != "passed"]
    assert not failed, failed
    assert result.verdict == "passed"
    assert [c.name for c in result.checks][:3] == [
        "atomicity-commit",
        "atomicity-rollback",
        "consistency",
    ]
    assert "ACID: passed" in render(result, "text")
    for fmt in ("md", "html", "json"):
        assert "isolation-3" in render(result, fmt)
    family, again, _ = read_result(result_dir / "result.json")
    assert family.name == "dbbench-acid-result"
    assert again.verdict == "passed"


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
        _check(tmp_path / "run", url)


def test_mariadb(tmp_path: Path, mariadb_base_url: str) -> None:
    from private_databases import fresh_mariadb

    with fresh_mariadb(mariadb_base_url, "dbbench_acid") as url:
        _check(tmp_path / "run", url)
