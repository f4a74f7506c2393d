"""What the site's views share of a row: dates and numbers made JSON-ready (numbers at full
resolution), and the price columns a cost sheet adds. Each family's own row is in its package
(``Family.site``: e.g. :mod:`reports.tpch.site`)."""

from __future__ import annotations

import datetime as dt
from functools import cache
from pathlib import Path
from typing import Any

from dbbench.reports.family import Row

__all__ = ["Row", "finite_or_none", "priced", "row_date"]


def row_date(epoch: float) -> str:
    if not epoch:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M")


def finite_or_none(value: Any) -> Any:
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


@cache
def _sheet(path: str) -> Any:
    from dbbench.reports.tpch.costsheet import load_cost_sheet

    return load_cost_sheet(Path(path))


def priced(row: Row, sheet_path: str) -> Row:
    """$/QphH and the storage ratio of a TPC-H row from the cost sheet its suite names
    (``build_report``'s rules: :func:`metrics.price_performance`, :func:`metrics.storage_ratio`);
    a sheet that cannot be read leaves both blank."""
    from dbbench.reports.errors import ReportsError
    from dbbench.reports.tpch import metrics

    if "qphh" not in row:
        return {}
    try:
        sheet = _sheet(sheet_path)
    except (ReportsError, OSError):
        return {}
    out: Row = {"cost_sheet": Path(sheet_path).name}
    qphh = row.get("qphh")
    if isinstance(qphh, int | float) and qphh > 0:
        out["price"] = float(metrics.price_performance(sheet.total_3y, float(qphh)))
    gib = sheet.storage_gib
    if gib is not None and row.get("sf"):
        out["storage"] = metrics.storage_ratio(gib, float(row["sf"]))
    return out
