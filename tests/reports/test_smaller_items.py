"""Smaller shortfalls of issue "reliability", item 11."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.costsheet import parse_cost_sheet
from dbbench.reports.tpch.model import BenchmarkResult

SHEET = """\
currency = "{currency}"
availability_date = 2026-01-31

[[item]]
category = "hardware"
description = "server"
unit_price = {price}
quantity = 1
"""


def _sheet(tmp_path: Path, name: str, price: str, currency: str = "USD") -> Path:
    path = tmp_path / name
    path.write_text(SHEET.format(price=price, currency=currency))
    return path


def test_the_same_result_twice_keeps_each_its_own_cost_sheet(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    one, two = _sheet(tmp_path, "a.toml", "1111"), _sheet(tmp_path, "b.toml", "2222")
    args = ["compare", "-f", "md", str(path), str(path), "-c", str(one), "-c", str(two)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "1,111" in out and "2,222" in out, out


def test_mixed_currencies_are_warned_about(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    usd, eur = _sheet(tmp_path, "a.toml", "1000"), _sheet(tmp_path, "b.toml", "1000", "EUR")
    assert main(["compare", str(path), str(path), "-c", str(usd), "-c", str(eur)]) == 0
    assert "prices are in different currencies (EUR, USD)" in capsys.readouterr().out


@pytest.mark.parametrize("code", ["XYZ", "BTC", "XAU", "usd"])
def test_only_real_currency_codes(code: str) -> None:
    with pytest.raises(ReportsError, match="must be an ISO 4217 code"):
        parse_cost_sheet(SHEET.format(price="1", currency=code))
    for real in ("USD", "EUR", "JPY", "CHF", "XOF"):
        assert parse_cost_sheet(SHEET.format(price="1", currency=real)).currency == real


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-T", ""], "-T/--tables names no table"),
        (["-T", " , "], "-T/--tables names no table"),
        (["-U", "100000"], "-U/--updates must be 0..1000"),
    ],
)
def test_gen_refuses_what_run_would_refuse(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "data"
    assert main(["gen", "-s", "0.01", "-o", str(out), *args]) == ExitCode.USER_ERROR
    assert message in capsys.readouterr().err
    assert not out.exists()
