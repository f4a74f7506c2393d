"""A TPC-H result as a HammerDB TPROC-H job report (``Family.job_report`` of TPC-H)."""

from __future__ import annotations

import math
from typing import Any

from dbbench.reports.hammerdb.job_format import (
    dbbench_envelope,
    int_or_float,
    query_rows,
    system_section,
    tproch_result,
)
from dbbench.reports.tpch.analysis import QUERY_COLUMNS
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.summary import build_report


def tpch_job_report(r: BenchmarkResult) -> dict[str, Any]:
    """A dbbench TPC-H result as a TPROC-H artifact: the power test of the reported run
    (stream 0 queries in their stream order), geometric mean over the queries."""
    report = build_report(r)
    run_no = report.headline.reported_run or (r.runs[0].number if r.runs else None)
    run = next((x for x in r.runs if x.number == run_no), None)
    ivs = sorted(
        (
            iv
            for iv in (run.intervals if run is not None else [])
            if iv.kind == "query" and iv.phase == "power" and iv.status == "ok"
        ),
        key=lambda iv: iv.position,
    )
    times = [(int(iv.query or 0), iv.seconds) for iv in ivs]
    positive = [s for _, s in times if s > 0]
    geo = math.exp(sum(math.log(s) for s in positive) / len(positive)) if positive else None
    doc = dbbench_envelope(
        "TPROC-H", "dbbench TPC-H power test", r.created, r.engine, r.kit_version
    )
    doc["benchmark_config"] = {"scale_factor": int_or_float(r.scale_factor), "virtual_users": 1}
    doc["system"] = system_section(r.system)
    display = doc["job"]["database_display"]
    doc["result"] = tproch_result(
        display, len(times), 1 if times else 0,
        None if geo is None else round(geo, 5), round(sum(s for _, s in times), 3),
    )  # fmt: skip
    doc["query_times"] = query_rows(times)
    doc["metrics"] = {"available": False, "cpu_percent": [], "iops": [], "mbps": []}
    doc["dbbench"] = {
        "source": "dbbench TPC-H power test",
        "run": run_no,
        "kit_version": r.kit_version,
        "query_version": r.query_version,
        "note": (
            "dbbench's qgen parameters, not HammerDB's: per-query times are comparable in "
            "kind, not identical work"
        ),
        "queries": len(QUERY_COLUMNS),
    }
    return doc
