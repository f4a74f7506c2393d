"""What the site's views share of a row: dates and numbers made JSON-ready (numbers at full
resolution), and the price columns a cost sheet adds. Each family's own row is in its package
(``Family.site``: e.g. :mod:`reports.tpch.site`)."""

from __future__ import annotations

import datetime as dt
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from dbbench.reports.family import Row
from dbbench.reports.model.hostnoise import HostNoise, recorded

__all__ = [
    "Row",
    "columns",
    "finite_or_none",
    "framed",
    "host_cells",
    "priced",
    "row_date",
    "suite_of",
    "url_options",
]


def framed(result: Any, cells: Row) -> Row:
    """A family's row: where and on what it ran (system, CPU, engine, version), ``cells``
    (the family's own: they may replace any of those), then its status, date and kit, and
    its provenance: the engine URL's options and the host noise its config records
    (:func:`host_cells`; a family that judges its own telemetry gives them in ``cells``)."""
    e = result.engine
    head = {"system": result.system.hostname, "cpu": result.system.cpu_model}
    head |= {"engine": e.name, "version": e.version}
    tail = {"status": result.status, "date": row_date(result.created), "kit": result.kit_version}
    tail |= {"options": url_options(e.url)} | host_cells(recorded(result.config))
    return {**head, **cells, **{k: v for k, v in tail.items() if k not in cells}}


def url_options(url: str) -> str:
    """The settings an engine URL passes (its query: ``threads=1``, PostgreSQL's
    ``options=-c ...``), as given; "" when it passes none. A URL never carries a password."""
    try:
        query = urlsplit(url).query
    except ValueError:
        return ""
    return "; ".join(f"{k}={v}" for k, v in parse_qsl(query, keep_blank_values=True))


def host_cells(noise: HostNoise | None, busy: list[str] | None = None) -> Row:
    """``host``: "busy" (with other work: the judge's reasons in ``host_noise``), "quiet" or
    "not recorded"; ``busy``: the reasons where the family judged them itself."""
    if noise is None and busy is None:
        return {"host": "not recorded", "host_noise": ""}
    reasons = busy if busy is not None else noise.busy() if noise is not None else []
    return {"host": "busy" if reasons else "quiet", "host_noise": "; ".join(reasons)}


_SUITES: dict[Path, str] = {}


def suite_of(path: Path) -> str:
    """The suite file a result was run by: the suite index in its run directory's parent
    (``dbbench suite -o DIR`` puts each entry's directory there); "" when none."""
    from dbbench.reports.errors import ReportsError
    from dbbench.reports.studies.suite_index import SuiteIndex

    run_dir = path if path.is_dir() else path.parent
    folder = run_dir.parent
    if folder not in _SUITES:
        try:
            _SUITES[folder] = Path(SuiteIndex.read(folder).suite_file).name
        except (ReportsError, OSError, KeyError, TypeError, ValueError):
            _SUITES[folder] = ""
    return _SUITES[folder]


def columns(spec: str) -> tuple[tuple[str, str, bool], ...]:
    """A site table's columns from ``"key=heading#|..."`` (heading: the key when not given;
    ``#``: a number column, right-aligned and sorted largest first)."""
    out = []
    for item in spec.split("|"):
        key, _, heading = item.strip().partition("=")
        numeric = (heading or key).endswith("#")
        out.append((key.rstrip("#"), (heading or key).rstrip("#"), numeric))
    return tuple(out)


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
