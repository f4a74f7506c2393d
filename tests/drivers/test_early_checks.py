"""Everything that can be checked is checked before the first statement (issue item 7).

Each bad option is refused in one line, at once (no load, no power test first), and leaves
no run directory behind; a database that cannot fit its disk is refused before loading.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.engines.duckdb import DuckDBEngine
from dbbench.errors import ExitCode

SF = "0.01"
#: GB at SF 1e9 = bytes per SF, as the default engine declares it (in its own module)
DUCKDB_PER_SF = DuckDBEngine.facts.bytes_per_sf or 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "-5"], "--seed -5: the seeds of the 3 streams"),
        (["--seed", "548781581296767"], "--seed 548781581296767: the seeds"),
        (["--seed", "2147483645"], "seed 2147483647 is 0 mod 2147483647"),
        (["-S", "100000"], "need 200002 update sets; dbgen defines 1000"),
        (["--runs", "600", "-S", "1"], "need 1200 update sets"),
        (["--query-timeout", "nan"], "--query-timeout must be a finite number, got 'nan'"),
        (["--query-timeout", "inf"], "--query-timeout must be a finite number, got 'inf'"),
        (["-j", "-1"], "--jobs must be at least 1, not -1"),
        (["-j", "0"], "--jobs must be at least 1, not 0"),
        (["-s", "1e9"], f"SF 1e+09 needs about {DUCKDB_PER_SF:,.1f} GB for the database"),
    ],
)
def test_refused_before_anything_runs(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    # CPU seconds of this process and its children: a busy machine stretches wall time only
    began = sum(os.times()[:4])
    code = main(["run", "-s", SF, "-o", str(out), *args])
    took = sum(os.times()[:4]) - began
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    assert message in err
    assert took < 5, "refused only after doing work"
    assert not out.exists()


def test_the_space_check_can_be_overridden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --no-space-check the same SF goes on to open the engine (here: to its own
    one-line refusal of a missing folder), proving the check was skipped."""
    url = f"duckdb:///{tmp_path / 'missing' / 'x.duckdb'}"
    code = main(["load", "-e", url, "-s", "1e9", "-o", str(tmp_path / "r"), "--no-space-check"])
    assert code == ExitCode.USER_ERROR
    assert "no such directory for the DuckDB file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("price", "message"),
    [
        # each price is readable, their total is not (the sheet's own check)
        ("1e17", "the prices add up to more than 1,000,000,000,000,000"),
        # a number no sheet holds (the bounded reader, before the sheet is looked at)
        ("1e300", "'item.unit_price' must have a magnitude between 1e-30 and 1e18, got 1E+300"),
    ],
)
def test_a_cost_sheet_that_cannot_be_totalled_is_refused_first(
    price: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "sheet.toml"
    sheet.write_text(
        'currency = "USD"\navailability_date = 2026-11-01\n'
        f'[[item]]\ncategory = "hardware"\ndescription = "x"\nunit_price = {price}\nquantity = 1\n'
    )
    out = tmp_path / "run"
    code = main(["run", "-s", SF, "-o", str(out), "--cost-sheet", str(sheet)])
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()
