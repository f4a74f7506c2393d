"""Cost sheets: totals to the cent, the example sheets, and errors that name line and field."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch import metrics
from dbbench.reports.tpch.costsheet import load_cost_sheet, parse_cost_sheet

ROOT = Path(__file__).resolve().parents[2]
SHEETS = ROOT / "examples" / "cost-sheets"

GOOD = """\
currency = "USD"
availability_date = 2026-01-31

[priced]
memory_gib = 64

[[item]]
category = "hardware"
description = "server"
unit_price = 1000.10
quantity = 2
discount = 100.00
maintenance_3y = 300.00

[[item]]
category = "storage"
description = "disk"
unit_price = 99.99
quantity = 4
capacity_gb = 1000
"""


def test_line_and_category_totals_are_exact_to_the_cent() -> None:
    sheet = parse_cost_sheet(GOOD, "good.toml")
    # 2 x 1000.10 - 100 + 300 = 2200.20 ; 4 x 99.99 = 399.96 ; total 2600.16
    assert sheet.total_3y == Decimal("2600.16")
    by_cat = {c.category: (c.purchase, c.maintenance_3y) for c in sheet.totals_by_category()}
    assert by_cat == {
        "hardware": (Decimal("1900.20"), Decimal("300.00")),
        "storage": (Decimal("399.96"), Decimal("0")),
    }
    assert sheet.disks == 4
    assert sheet.storage_gib == 4 * metrics.decimal_gb_to_gib(1000)
    assert sheet.memory_gib == 64


def test_x4600_sheet_reproduces_the_published_total_and_ratios() -> None:
    sheet = load_cost_sheet(SHEETS / "sun-fire-x4600-m2-300gb.toml")
    assert sheet.total_3y == Decimal("154284.19")
    assert sheet.currency == "USD"
    assert str(sheet.availability_date) == "2009-07-06"
    assert sheet.storage_gib is not None and sheet.memory_gib is not None
    assert metrics.storage_ratio(sheet.storage_gib, 300) == 76.82
    assert metrics.memory_percent(sheet.memory_gib, 300) == 85.3
    assert metrics.price_performance(sheet.total_3y, 55157.5) == Decimal("2.80")


def test_cloud_sheet_is_valid_and_priced_for_36_months() -> None:
    sheet = load_cost_sheet(SHEETS / "cloud-vm-3y.toml")
    assert sheet.total_3y == Decimal("9948.24")
    assert sheet.storage_gib == 500


def _error(text: str) -> str:
    with pytest.raises(ReportsError) as info:
        parse_cost_sheet(text, "sheet.toml")
    message = str(info.value)
    assert "\n" not in message
    return message


def test_negative_price_names_line_and_field() -> None:
    message = _error(GOOD.replace("unit_price = 99.99", "unit_price = -99.99"))
    assert message.startswith("cost sheet sheet.toml:18: item 2, field 'unit_price'")
    assert "negative" in message


def test_missing_currency_names_the_field() -> None:
    message = _error(GOOD.replace('currency = "USD"\n', ""))
    assert "sheet.toml:1: field 'currency': is missing" in message


def test_fractional_quantity_names_line_and_field() -> None:
    message = _error(GOOD.replace("quantity = 2\n", "quantity = 2.5\n"))
    assert message.startswith("cost sheet sheet.toml:11: item 1, field 'quantity'")
    assert "whole number" in message


def test_unknown_category_names_line_and_field() -> None:
    message = _error(GOOD.replace('category = "storage"', 'category = "snacks"'))
    assert message.startswith("cost sheet sheet.toml:16: item 2, field 'category'")


def test_missing_unit_price_names_the_item() -> None:
    message = _error(GOOD.replace("unit_price = 99.99\n", ""))
    assert "item 2, field 'unit_price': is missing" in message


def test_discount_larger_than_the_line_is_refused() -> None:
    message = _error(GOOD.replace("discount = 100.00", "discount = 5000.00"))
    assert "sheet.toml:12: item 1, field 'discount'" in message


def test_bad_currency_code_and_unknown_field_and_bad_toml() -> None:
    assert "field 'currency'" in _error(GOOD.replace('"USD"', '"dollars"'))
    assert "field 'colour': unknown field" in _error(
        GOOD.replace("quantity = 4", "colour = 1\nquantity = 4")
    )
    assert "not valid TOML" in _error(GOOD + "\n[[item\n")


def test_missing_file_is_a_reports_error(tmp_path: Path) -> None:
    with pytest.raises(ReportsError, match="cannot read cost sheet"):
        load_cost_sheet(tmp_path / "absent.toml")
