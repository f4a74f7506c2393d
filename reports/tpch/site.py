"""The TPC-H family's page of the static site: its row (published records' too) and its full
report made from the run summaries ``verify`` computed already."""

from __future__ import annotations

from typing import Any

from dbbench.reports.family import Checked, Row, SitePage, SiteView
from dbbench.reports.site.rows import framed, host_cells
from dbbench.reports.tpch.acid import acid_line
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.published import PublishedResult
from dbbench.reports.tpch.telemetry import summarise
from dbbench.reports.tpch.verify import reported_run


def tpch_row(result: BenchmarkResult, checked: Checked) -> Row:
    best = reported_run(checked.runs)
    shown = best or (checked.runs[0] if checked.runs else None)
    queries = {}
    if shown is not None:
        queries = {c[1:]: v for c, v in shown.power_exact.items() if c.startswith("Q")}
    load = result.load.seconds if result.load and not result.load.reused else None
    cells: Row = {"cores": result.system.cores, "sf": result.scale_factor}
    cells |= {"streams": result.streams, "price": None, "storage": None, "load": load}
    cells |= {k: checked.figures.get(k) for k in ("qphh", "power", "throughput")}
    cells |= {"compliant": result.compliance.compliant, "published": False, "queries": queries}
    # what the per-query view must see alike to name a best (the comparison's guards)
    seed = result.runs[0].seeds.get("0") if result.runs else None
    cells |= {"query_version": result.query_version, "seed": seed}
    tel = summarise(result)  # TPC-H judges its own telemetry by the one rule
    cells |= host_cells(None, None if tel is None else tel.busy)
    cells["acid"] = acid_line(result).removeprefix("ACID: ")  # passed (tests ...), not run, ...
    return framed(result, cells)


def published_row(record: PublishedResult) -> Row:
    return {
        "system": record.system,
        "cpu": record.processor,
        "cores": record.cores,
        "engine": record.database,
        "version": "",
        "sf": record.scale_factor,
        "streams": record.streams,
        "qphh": record.qphh,
        "power": record.power,
        "throughput": record.throughput,
        "price": None if record.price_performance is None else float(record.price_performance),
        "storage": None,
        "load": None,
        "compliant": True,
        "acid": "audited by the TPC",
        "status": "published",
        "date": record.availability_date.isoformat() if record.availability_date else "",
        "kit": "",
        "published": True,
        "queries": {},
    }


def report(result: BenchmarkResult, checked: Checked) -> str:
    """The full HTML report, from the run summaries verify made."""
    from dbbench.reports.tpch.render import render_html
    from dbbench.reports.tpch.summary import build_report

    return render_html(build_report(result, runs=checked.runs or None))


def _without_queries(rows: list[Row]) -> list[Row]:
    return [{k: v for k, v in row.items() if k != "queries"} for row in rows]


def _landscape(rows: list[Row]) -> dict[str, Any]:
    return {"rows": _without_queries(rows)}


def _queries(rows: list[Row]) -> dict[str, Any]:
    return {"rows": rows}


def _history(rows: list[Row]) -> dict[str, Any]:
    return {"rows": [r for r in _without_queries(rows) if not r["published"]]}


#: the landscape's note, and the per-query view's and the history's pages
NOTE = "Every TPC-H result; filter, sort by any column, pick results for the per-query view."
QUERIES_NOTE = (
    "Power-test times of the reported run, relative to the best of the picked results "
    "(one scale factor at a time)."
)
HISTORY_NOTE = "The same engine, machine and scale factor over time (kit and engine versions)."
QUERIES = SitePage("queries", "Per query", "Per-query times", QUERIES_NOTE, _queries)
HISTORY = SitePage("history", "History", "History", HISTORY_NOTE, _history)
SITE = SiteView(
    "tpch", "TPC-H", "TPC-H landscape", NOTE, tpch_row,
    report=report, order=0, data=_landscape, more=(QUERIES, HISTORY),
)  # fmt: skip
