"""``dbbench answers make``: an answer set made by two engines that agree, read by
``dbbench validate --answers``; an edited value is named by query, row and column; the
shipped SF 10 and SF 30 sets checked on DuckDB (nightly)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.queries.validate import (
    MANIFEST,
    format_answer,
    load_answers,
    parse_answer,
    shipped_scale_factors,
)

SF = "0.01"


@pytest.fixture(scope="module")
def made_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SF 0.01 set made by DuckDB and SQLite (two independent engines)."""
    root = tmp_path_factory.mktemp("answers")
    out = root / "sf0.01"
    engines = f"duckdb,sqlite:///{root / 'second.sqlite'}"
    args = ["answers", "make", "-s", SF, "--engines", engines, "-o", str(out)]
    assert main([*args, "--work", str(root)]) == 0
    return out


def test_answers_make_writes_a_set_validate_reads(
    made_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = sorted(p.name for p in made_set.iterdir())
    assert names == sorted([*(f"q{q}.out" for q in range(1, 23)), "colprecision.txt", MANIFEST])
    manifest = json.loads((made_set / MANIFEST).read_text())
    assert manifest["scale_factor"] == 0.01
    assert [e["engine"] for e in manifest["engines"]] == ["DuckDB", "SQLite"]
    assert all(e["version"] and e["load_seconds"] >= 0 for e in manifest["engines"])
    assert manifest["seconds"] > 0 and manifest["made"].startswith("20")
    # the SF1 layout: the official header, one line per row; Q1 has its four groups
    columns, rows = load_answers(1, made_set)
    assert columns == load_answers(1)[0] and rows[0][:2] == ("A", "F")
    assert len(rows) == 4
    assert not [p for p in made_set.parent.iterdir() if p.name.startswith("dbbench-answers-")]
    db = tmp_path / "v.duckdb"
    args = ["validate", "-e", f"duckdb:///{db}", "-s", SF, "--answers", str(made_set)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "all 22 queries pass" in out and str(made_set) in out


def test_an_edited_value_is_named_by_query_row_and_column(
    made_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = tmp_path / "edited"
    shutil.copytree(made_set, edited)
    q1 = edited / "q1.out"
    header, first, *rest = q1.read_text().splitlines()
    fields = first.split("|")
    fields[2] = str(int(fields[2]) + 1)  # sum_qty, an exact column
    q1.write_text("\n".join([header, "|".join(fields), *rest]) + "\n")
    db = tmp_path / "v.duckdb"
    args = ["validate", "-e", f"duckdb:///{db}", "-s", SF, "--answers", str(edited), "--json"]
    assert main(args) == ExitCode.INVALID_RUN
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    failed = [v for v in document["queries"] if not v["passed"]]
    assert [v["query"] for v in failed] == [1]
    assert failed[0]["first_mismatch"].startswith("row 1: column sum_qty (exact): expected")
    assert "validation failed: Q1" in captured.err


def test_answers_make_and_validate_refuse_in_one_line(
    made_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "set"
    unreachable = f"duckdb,chdb:///{tmp_path}/x/y"  # chDB's folder in no directory
    cases = [
        (["answers", "make", "-s", SF, "--engines", "duckdb", "-o", str(out)], "two engines"),
        (
            ["answers", "make", "-s", SF, "--engines", "duckdb,duckdb", "-o", str(out)],
            "two different engines",
        ),
        (
            ["answers", "make", "-s", SF, "--engines", "duckdb,sqlite", "-o", str(made_set)],
            "holds an answer set already",
        ),
        (  # the second engine's URL refused before the first one loads anything
            ["answers", "make", "-s", SF, "--engines", unreachable, "-o", str(out)],
            "no such directory for the chDB folder",
        ),
        (
            ["validate", "-e", "duckdb", "-s", "1", "--answers", str(made_set)],
            "is the answer set of SF 0.01, not SF 1",
        ),
        (
            ["validate", "-e", "duckdb", "-s", SF, "--answers", str(tmp_path)],
            "not an answer set",
        ),
    ]
    for args, message in cases:
        assert main(args) != 0, args
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_answer_text_round_trip_keeps_nulls_and_leading_blanks() -> None:
    rows = [(None,)]
    assert parse_answer(17, format_answer(17, rows), "q17.out")[1] == [(None,)]
    q16 = [("Brand#41", "  MEDIUM BRUSHED TIN  ", 3, 28)]
    assert parse_answer(16, format_answer(16, q16), "q16.out")[1] == [
        ("Brand#41", "  MEDIUM BRUSHED TIN", "3.00", "28")  # p_size: a num column
    ]
    assert 1.0 in shipped_scale_factors()


def test_the_shipped_sf10_set_reads_and_names_its_engines() -> None:
    assert shipped_scale_factors()[:2] == [1.0, 10.0]
    rows = {q: len(load_answers(q, 10.0)[1]) for q in range(1, 23)}
    assert rows[1] == 4 and rows[16] == 27840 and rows[18] == 100 and min(rows.values()) == 1
    assert all(load_answers(q, 10.0)[0] == load_answers(q)[0] for q in (1, 16, 18))
    assert load_answers(6, 10.0)[1] == [("1230113636.01",)]
    shipped = Path(__file__).parents[2] / "queries" / "answers" / "sf10"
    manifest = json.loads((shipped / MANIFEST).read_text())
    assert manifest["scale_factor"] == 10.0
    assert [e["engine"] for e in manifest["engines"]] == ["DuckDB", "ClickHouse (chDB)"]


def test_the_shipped_sf30_set_reads_and_scales_from_sf10() -> None:
    """The SF 30 set: every query's columns as at SF 1, the row counts the spec fixes
    (Q1's 4 flags, the LIMIT queries' 100 rows, Q16's groups as at SF 10), and a sum that
    grows with the data (Q6's revenue about 3 times SF 10's), made by two named engines."""
    assert shipped_scale_factors() == [1.0, 10.0, 30.0]
    rows = {q: load_answers(q, 30.0)[1] for q in range(1, 23)}
    assert all(load_answers(q, 30.0)[0] == load_answers(q)[0] for q in range(1, 23))
    assert len(rows[1]) == 4 and len(rows[2]) == len(rows[18]) == len(rows[21]) == 100
    assert len(rows[16]) == len(load_answers(16, 10.0)[1]) == 27840
    ratio = float(rows[6][0][0]) / float(load_answers(6, 10.0)[1][0][0])
    assert 2.9 < ratio < 3.1, ratio
    shipped = Path(__file__).parents[2] / "queries" / "answers" / "sf30"
    manifest = json.loads((shipped / MANIFEST).read_text())
    assert manifest["scale_factor"] == 30.0
    assert [e["engine"] for e in manifest["engines"]] == ["DuckDB", "ClickHouse (chDB)"]


@pytest.mark.nightly
@pytest.mark.timeout(7200)
@pytest.mark.parametrize("sf", ["10", "30"])
def test_validate_duckdb_against_the_shipped_set(
    sf: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dbbench validate -e duckdb -s 10`` (and ``-s 30``) by value against the shipped
    set (a load takes minutes): runs only with DBBENCH_NIGHTLY=1."""
    if os.environ.get("DBBENCH_NIGHTLY", "") in ("", "0"):
        pytest.skip("an SF 10 or 30 load takes minutes: set DBBENCH_NIGHTLY=1")
    assert float(sf) in shipped_scale_factors()
    db = tmp_path / f"sf{sf}.duckdb"
    assert main(["validate", "-e", f"duckdb:///{db}", "-s", sf]) == 0
    assert "all 22 queries pass" in capsys.readouterr().out
