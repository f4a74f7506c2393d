"""What each view shows of a result: plain JSON-ready rows (numbers at full resolution)."""

from __future__ import annotations

import datetime as dt
from functools import cache
from pathlib import Path
from typing import Any

from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.published import PublishedResult
from dbbench.reports.verify import Verdict, reported_run

Row = dict[str, Any]


def _date(epoch: float) -> str:
    if not epoch:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def tpch_row(result: BenchmarkResult, verdict: Verdict) -> Row:
    best = reported_run(verdict.runs)
    shown = best or (verdict.runs[0] if verdict.runs else None)
    queries = {}
    if shown is not None:
        queries = {c[1:]: v for c, v in shown.power_exact.items() if c.startswith("Q")}
    s, e = result.system, result.engine
    return {
        "system": s.hostname,
        "cpu": s.cpu_model,
        "cores": s.cores,
        "engine": e.name,
        "version": e.version,
        "sf": result.scale_factor,
        "streams": result.streams,
        "qphh": verdict.figures.get("qphh"),
        "power": verdict.figures.get("power"),
        "throughput": verdict.figures.get("throughput"),
        "price": None,
        "storage": None,
        "load": result.load.seconds if result.load and not result.load.reused else None,
        "compliant": result.compliance.compliant,
        "status": result.status,
        "date": _date(result.created),
        "kit": result.kit_version,
        "published": False,
        "queries": queries,
    }


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
        "status": "published",
        "date": record.availability_date.isoformat() if record.availability_date else "",
        "kit": "",
        "published": True,
        "queries": {},
    }


def o2c_row(result: O2CResult, verdict: Verdict) -> Row:
    from dbbench.reports.o2c.metrics import rating

    sph = verdict.figures.get("steps_per_hour")
    return {
        "system": result.system.hostname,
        "cpu": result.system.cpu_model,
        "engine": result.engine.name,
        "version": result.engine.version,
        "sf": result.scale_factor,
        "kind": result.kind,
        "users": verdict.figures.get("users"),
        "steps_per_hour": sph,
        "avg_rt": verdict.figures.get("avg_rt"),
        "rt_limit": result.rt_limit,
        "saps": _finite(rating(float(sph))) if isinstance(sph, int | float) else None,
        "status": result.status,
        "date": _date(result.created),
        "kit": result.kit_version,
    }


def hammerdb_row(result: HammerDBResult, verdict: Verdict) -> Row:
    return {
        "system": result.system.hostname,
        "benchmark": result.benchmark,
        "database": result.database,
        "version": result.engine.version,
        "nopm": result.nopm,
        "tpm": result.tpm,
        "geomean": result.geomean_seconds,
        "vus": result.active_virtual_users,
        "status": result.status,
        "date": _date(result.created) or result.timestamp,
        "kit": result.kit_version,
    }


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


def o2c_study(result: O2CResult, title: str) -> dict[str, Any] | None:
    """An o2c scaling study (``scale``: relative dialog steps/h against users, as
    :func:`o2c_metrics.scaling` gives it; ``nodes``: against the number of database nodes,
    relative to the fewest), in the form of the scaling page; None for another kind."""
    from dbbench.reports.o2c.metrics import scaling, summarize

    if result.kind not in ("scale", "nodes") or not result.probes:
        return None
    summaries = [summarize(p, result.rt_limit) for p in result.probes]
    points: list[dict[str, Any]] = []
    if result.kind == "scale":
        for point in scaling(summaries):
            points.append(
                {
                    "x": point.users,
                    "relative": _finite(point.relative),
                    "per_hour": point.steps_per_hour,
                    "efficiency": _finite(point.efficiency),
                    "status": "ok" if point.passed else "over the RT limit",
                }
            )
    else:
        pairs = sorted(
            ((max(1, len(p.nodes)), s) for p, s in zip(result.probes, summaries, strict=True)),
            key=lambda pair: pair[0],
        )
        first = pairs[0]
        for nodes, summary in pairs:
            base = first[1].steps_per_hour
            relative = summary.steps_per_hour / base if base > 0 else None
            points.append(
                {
                    "x": nodes,
                    "relative": relative,
                    "per_hour": summary.steps_per_hour,
                    "efficiency": None if relative is None else relative / (nodes / first[0]),
                    "status": "ok" if summary.passed else "over the RT limit",
                }
            )
    axis = "users" if result.kind == "scale" else "nodes"
    return {"title": title, "axis": axis, "source": "o2c " + result.kind, "points": points}
