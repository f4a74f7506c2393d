"""``dbbench qgen`` and ``dbbench validate`` through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.queries.params import parameter_log, stream_parameters
from dbbench.queries.render import render

ALL = list(range(1, 23))


def test_qgen_log_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "params.log"
    assert main(["qgen", "-r", "0101000000", "-s", "1", "-l", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("-- using 101000000 as a seed to the RNG\n")
    assert log.read_text() == parameter_log(stream_parameters(101000000, 1), ALL)
    assert log.read_text().splitlines()[8] == "9\tlime"
    # without -p: queries 1..22 in numeric order, the Q15 view of stream 0
    assert [line for line in out.splitlines() if line.startswith("-- Q")] == [
        f"-- Q{q}" for q in ALL
    ]
    assert "create view revenue0 " in out
    q9 = render(9, ["lime"], dialect="duckdb", stream=0).script()
    assert f"-- Q9\n{q9}" in out


def test_qgen_stream_order_and_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["qgen", "-r", "5", "-p", "1", "--dialect", "sqlite"]) == 0
    out = capsys.readouterr().out
    order = [int(line[4:]) for line in out.splitlines() if line.startswith("-- Q")]
    assert order[:4] == [21, 3, 18, 5]
    assert "create view revenue1 " in out and "substr(c_phone, 1, 2)" in out
    assert main(["qgen", "-r", "5", "-p", "1", "15", "21"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("-- Q")] == ["-- Q21", "-- Q15"]


def test_qgen_defaults_log_like_qgen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "defaults.log"
    assert main(["qgen", "-d", "-s", "100", "-l", str(log), "11", "6"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("-- using default substitutions\n")
    assert "* 0.0000010000" in out  # the text has 0.0001/SF ...
    assert log.read_text() == "11\tGERMANY\t0.0001\n6\t1994-01-01\t.06\t24\n"  # ... the log not


def test_qgen_negative_seed_as_qgen(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["qgen", "-r", "-2046483647", "1"]) == 0
    assert capsys.readouterr().out.startswith("-- using 101000000 as a seed to the RNG\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["qgen", "23"], "unknown query 23"),
        (["qgen", "-r", "x1"], "seed must be an integer"),
        (["qgen", "-s", "0"], "scale factor must be a positive finite number, got '0'"),
        (["qgen", "--dialect", "oracle"], "unknown SQL dialect 'oracle'"),
        (["qgen", "-p", "-2"], "stream must be a non-negative integer"),
    ],
)
def test_qgen_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_validate_against_reference_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, ref = tmp_path / "a.duckdb", tmp_path / "b.db"
    args = ["validate", "-e", f"duckdb:///{db}", "-s", "0.01", "--against", f"sqlite:///{ref}"]
    assert main(args) == 0
    assert "all 22 queries pass" in capsys.readouterr().out
    import sqlite3  # spoil one value that Q6 with the defaults sums

    with sqlite3.connect(ref) as conn:
        conn.execute(
            "update lineitem set l_extendedprice = l_extendedprice + 100000 where l_orderkey ="
            " (select min(l_orderkey) from lineitem where l_shipdate >= '1994-01-01' and"
            " l_shipdate < '1995-01-01' and l_discount between 0.05 and 0.07"
            " and l_quantity < 24)"
        )
    assert main(args) == 3
    captured = capsys.readouterr()
    assert "dbbench: validation failed: Q1, Q6" in captured.err
    assert "column revenue (sum)" in captured.out
    assert main([*args, "--json"]) == 3
    document = json.loads(capsys.readouterr().out)
    assert document["passed"] is False and len(document["queries"]) == 22
    q6 = document["queries"][5]
    assert (q6["query"], q6["passed"], q6["rows_expected"], q6["rows_got"]) == (6, False, 1, 1)
    assert q6["first_mismatch"].startswith("row 1: column revenue (sum): expected")


def test_validate_refuses_wrong_scale_factor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "a.duckdb"
    assert (
        main(
            [
                "validate",
                "-e",
                f"duckdb:///{db}",
                "-s",
                "0.01",
                "--against",
                f"duckdb:///{tmp_path / 'b.duckdb'}",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["validate", "-e", f"duckdb:///{db}", "-s", "1"]) == 1
    assert "holds scale factor 0.01, not 1" in capsys.readouterr().err
    assert main(["validate", "-e", f"duckdb:///{db}", "-s", "0.01"]) == 1
    err = capsys.readouterr().err
    assert "no answer set ships for SF 0.01 (shipped: SF 1" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_validate_official_sf1(duckdb_sf1_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-e", f"duckdb:///{duckdb_sf1_path}", "-s", "1"]) == 0
    assert "all 22 queries pass" in capsys.readouterr().out


def test_validate_never_drops_tables_it_did_not_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    db = tmp_path / "theirs.db"
    with sqlite3.connect(db) as conn:
        conn.execute("create table region (r_regionkey int, r_name text, r_comment text)")
        conn.execute("insert into region values (0, 'MINE', 'keep me')")
    args = ["validate", "-e", f"sqlite:///{db}", "-s", "0.01", "--against", f"sqlite:///{db}"]
    assert main(args) == 1
    assert "holds TPC-H tables that dbbench did not load" in capsys.readouterr().err
    with sqlite3.connect(db) as conn:
        assert conn.execute("select r_name from region").fetchall() == [("MINE",)]


def test_validate_refuses_row_counts_of_another_sf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    db, ref = tmp_path / "a.db", tmp_path / "b.duckdb"
    args = ["validate", "-e", f"sqlite:///{db}", "-s", "0.01", "--against", f"duckdb:///{ref}"]
    assert main(args) == 0
    with sqlite3.connect(db) as conn:
        conn.execute("delete from lineitem where l_orderkey = 1 and l_linenumber = 1")
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    # refused by the exact reuse check (issue reliability item 3) or by validate's own
    assert "table lineitem has 60174 rows" in err and "60175" in err
