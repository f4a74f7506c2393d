"""Preflight: warnings where an engine is configured to measure the disk, not itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from studies_helpers import dbbench

from dbbench.drivers.engines.duckdb import DuckDBEngine
from dbbench.drivers.engines.mysql import MySqlEngine
from dbbench.drivers.engines.postgresql import PostgresEngine
from dbbench.reports.loading import load_result
from dbbench.reports.model import EngineInfo
from dbbench.reports.tpch.fairness import PreflightFacts, preflight, size_bytes
from dbbench.reports.tpch.formats import render

GIB = 1 << 30
#: Each engine's rules, from its own module (as ``dbbench preflight`` passes them).
MYSQL = PreflightFacts.from_data(MySqlEngine.facts.preflight_facts())
POSTGRES = PreflightFacts.from_data(PostgresEngine.facts.preflight_facts())
DUCKDB = PreflightFacts.from_data(DuckDBEngine.facts.preflight_facts())


def test_sizes_as_engines_write_them() -> None:
    assert size_bytes("128MB") == 128 << 20  # PostgreSQL: 1024-based
    assert size_bytes("134217728") == 128 << 20  # MariaDB: bytes
    assert size_bytes("18.8 GiB") == int(18.8 * GIB)  # DuckDB
    assert size_bytes("8kB") == 8192
    assert size_bytes("on") is None and size_bytes(None) is None and size_bytes("1 parsec") is None


def test_default_buffer_sizes_warn_at_sf1_not_at_small_sf() -> None:
    maria = EngineInfo("mysql", "mysql://x", settings={"innodb_buffer_pool_size": "134217728"})
    (line,) = preflight(maria, 1, 8 * GIB, MYSQL)
    assert line.startswith("mysql: innodb_buffer_pool_size 128 MiB is smaller than the 1.40 GiB")
    assert preflight(maria, 0.01, 8 * GIB, MYSQL) == []
    assert preflight(maria, 1, 8 * GIB, PreflightFacts()) == []  # rules are the engine's
    pg = EngineInfo("postgresql", "pg", settings={"shared_buffers": "128MB", "work_mem": "4MB"})
    lines = preflight(pg, 1, 8 * GIB, POSTGRES)
    assert [line.split(" ")[1] for line in lines] == ["shared_buffers", "work_mem"]
    # 128 MB is already a quarter of a 512 MiB machine: nothing more to ask of it
    assert [line.split(" ")[1] for line in preflight(pg, 1, 512 << 20, POSTGRES)] == ["work_mem"]
    tuned = EngineInfo("postgresql", "pg", settings={"shared_buffers": "4GB", "work_mem": "256MB"})
    assert preflight(tuned, 1, 16 * GIB, POSTGRES) == []
    duck = EngineInfo("duckdb", "duckdb", settings={"memory_limit": "100.0 MiB"})
    assert preflight(duck, 1, None, DUCKDB)[0].startswith("duckdb: memory_limit 100 MiB is smaller")
    # a measured size larger than the estimate is used (and said to be measured)
    big = EngineInfo("duckdb", "d", settings={"memory_limit": "1 GiB"}, storage_bytes=2 * GIB)
    assert "(measured, SF 1)" in preflight(big, 1, None, DUCKDB)[0]


def test_preflight_command_reads_a_real_engines_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"duckdb:///{tmp_path / 'x.duckdb'}?memory_limit=100MB"
    assert dbbench("preflight", "-e", url, "-s", "1") == 0
    out = capsys.readouterr().out
    # DuckDB's bytes per SF, from its module: 0.28e9 (an SF 1 file measured 279.5 MB)
    assert out.startswith("warning: duckdb: memory_limit 95 MiB is smaller than the 267 MiB")
    assert dbbench("preflight", "-e", url, "-s", "0.01") == 0
    assert "no configuration warning for SF 0.01" in capsys.readouterr().out


def test_the_report_lists_the_warnings(duckdb_run: Path) -> None:
    result = load_result(duckdb_run)
    # the run recorded its engine's preflight facts: the report applies them, importing none
    assert result.config["preflight"] == DuckDBEngine.facts.preflight_facts()
    assert "Configuration warnings" not in render(result, "md")  # SF 0.01 fits in memory
    result.engine.settings["memory_limit"] = "100.0 MiB"  # as if the URL had set it
    result.scale_factor = 1.0
    assert "## Configuration warnings" in render(result, "md")
    assert "configuration: duckdb: memory_limit" in render(result, "text")
    assert 'id="preflight"' in render(result, "html")
