"""Engine URL options: each engine's typed options parsed and checked in one place
(``drivers.options``); a bad value is one line and exit code 1, never an internal error."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from dbbench.cli import main
from dbbench.drivers.engines.duckdb import DuckDBOptions
from dbbench.drivers.engines.mysql import MySqlOptions
from dbbench.drivers.engines.postgresql import PostgresOptions
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import DEFAULT_REFRESH_BATCH, EngineOptions
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import EngineURL, parse_url


@dataclass(frozen=True)
class SampleOptions(EngineOptions):
    keys: bool = False
    indexes: bool = True
    streams: int = 4
    load: Literal["file", "insert"] = "file"


def test_flags_counts_and_choices() -> None:
    url = EngineURL(
        "x", query={"keys": "Yes", "indexes": "0", "streams": "2", "load": "insert", "a": "b"}
    )
    options = SampleOptions.from_url(url)
    assert options == SampleOptions(DEFAULT_REFRESH_BATCH, True, False, 2, "insert")
    assert SampleOptions.from_url(EngineURL("x")) == SampleOptions()
    assert SampleOptions.driver_options(url) == {"a": "b"}  # the rest is the driver's


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"keys": "maybe"}, "keys='maybe' must be true or false"),
        ({"streams": "x"}, "streams='x' must be a positive integer"),
        ({"streams": "0"}, "streams='0' must be a positive integer"),
        ({"refresh_batch": "-5"}, "refresh_batch='-5' must be a positive integer"),
        ({"load": "copy"}, "load='copy' must be file or insert"),
    ],
)
def test_bad_values_are_one_line(query: dict[str, str], message: str) -> None:
    with pytest.raises(DriversError) as info:
        SampleOptions.from_url(EngineURL("x", query=query))
    assert str(info.value) == f"engine option {message}"


def test_each_engine_declares_its_options() -> None:
    pg = PostgresOptions.from_url(parse_url("postgresql://h/db?copy_streams=3&sslmode=disable"))
    assert (pg.copy_streams, pg.indexes) == (3, True)
    assert PostgresOptions.driver_options(parse_url("postgresql://h/db?copy_streams=3&a=1")) == {
        "a": "1"
    }
    assert DuckDBOptions.from_url(parse_url("duckdb")).keys is False
    mysql = MySqlOptions.from_url(parse_url("mysql://h/db"))
    assert (mysql.keys, mysql.indexes, mysql.load) == (True, True, "file")


def test_bad_option_before_connecting(tmp_path: Path) -> None:
    with pytest.raises(DriversError, match="keys='sometimes' must be true or false"):
        open_engine(f"duckdb:///{tmp_path}/x.db?keys=sometimes")


def test_bad_option_on_the_command_line_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``?copy_streams=x`` used to escape as an internal error (exit 70). No server is
    contacted: the options are checked before connecting."""
    url = "postgresql://postgres:hunter2@127.0.0.1:1/db?copy_streams=x"
    assert main(["load", "-e", url, "-s", "0.01", "-o", str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert err == "dbbench: error: engine option copy_streams='x' must be a positive integer\n"
    assert not (tmp_path / "run").exists()


def _duckdb_settings(engine: object) -> dict[str, str]:
    rows = (
        engine.admin()
        .query(  # type: ignore[attr-defined]
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('threads', 'memory_limit')"
        )
        .rows
    )
    return {str(name): str(value) for name, value in rows}


@pytest.mark.parametrize(
    ("query", "during"),
    [
        ("", {"threads": "1", "memory_limit": "610.3 MiB"}),  # 640 MB, as DuckDB prints it
        ("?threads=2&memory_limit=1GB", {"threads": "2", "memory_limit": "953.6 MiB"}),
    ],
)
def test_duckdb_load_settings_last_until_the_checkpoint(
    tmp_path: Path, query: str, during: dict[str, str]
) -> None:
    """A load runs DuckDB on one worker thread with a bounded memory, unless the URL says
    otherwise; the queries after it get the URL's settings or DuckDB's defaults again."""
    engine = open_engine(f"duckdb:///{tmp_path / 'x.duckdb'}{query}")
    try:
        before = _duckdb_settings(engine)
        engine.create_schema()
        assert _duckdb_settings(engine) == during
        engine.finish_load()
        assert _duckdb_settings(engine) == before
    finally:
        engine.close()
    memory = open_engine("duckdb")
    try:
        memory.create_schema()
        assert _duckdb_settings(memory)["threads"] == "1"
        assert _duckdb_settings(memory)["memory_limit"] != "610.3 MiB"  # never bounded
    finally:
        memory.close()
