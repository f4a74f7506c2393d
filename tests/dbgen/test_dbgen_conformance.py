"""Byte identity with tpchgen-cli (whose output equals the reference dbgen's), whole tables
and split into 3 and 7 parts (tpchgen-cli's parts follow dbgen's -C/-S chunking)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dbgen_testlib import first_difference, ours, run_tpchgen

from dbbench.dbgen.schema import TABLES

SCALES = [0.01, 0.1]


@pytest.fixture(scope="module")
def refdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tpchgen")


@pytest.mark.parametrize("sf", SCALES)
def test_whole_tables_identical(refdir: Path, sf: float) -> None:
    out = run_tpchgen(refdir / f"sf{sf}", sf)
    problems = []
    for table in TABLES:
        diff = first_difference(
            f"{table} at SF {sf}", ours(table, sf), (out / f"{table}.tbl").read_bytes()
        )
        if diff:
            problems.append(diff)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("parts", [3, 7])
@pytest.mark.parametrize("sf", SCALES)
def test_parts_identical(refdir: Path, sf: float, parts: int) -> None:
    out = run_tpchgen(refdir / f"sf{sf}-p{parts}", sf, parts)
    problems = []
    for table in TABLES:
        for part in range(1, parts + 1):
            ref_file = out / table / f"{table}.{part}.tbl"
            expected = ref_file.read_bytes() if ref_file.exists() else b""
            got = ours(table, sf, part, parts)
            diff = first_difference(f"{table} part {part}/{parts} at SF {sf}", got, expected)
            if diff:
                problems.append(diff)
    assert not problems, "\n".join(problems)
