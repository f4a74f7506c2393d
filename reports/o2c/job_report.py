"""An o2c result as a HammerDB TPROC-C-like job report labelled dbbench o2c (unofficial)
(``Family.job_report`` of o2c)."""

from __future__ import annotations

import math
from typing import Any

from dbbench.reports.hammerdb.job_format import (
    dbbench_envelope,
    int_or_float,
    local_time,
    ms,
    system_section,
)
from dbbench.reports.o2c.metrics import DISCLAIMER as O2C_DISCLAIMER
from dbbench.reports.o2c.metrics import summarize, summarize_result
from dbbench.reports.o2c.model import O2CResult


def o2c_job_report(r: O2CResult) -> dict[str, Any]:
    """A dbbench o2c result as a TPROC-C-like artifact (both are OLTP user workloads with
    think time; o2c is not TPROC-C and the artifact says so): one probe, that of a ``run`` or
    the largest passing probe of a ``search`` (else its last probe). ``result.nopm`` holds
    o2c's fully processed (invoiced) orders per minute, ``result.tpm`` its dialog steps per
    minute, ``response_times`` one row per o2c transaction (dialog response times, steady
    window), ``transaction_count`` the dialog steps per minute over the whole probe."""
    if not r.probes:
        raise ValueError("the o2c result holds no probe: nothing to export")
    index = 0
    if r.kind in ("search", "scale"):
        found = summarize_result(r)
        index = next((i for i, x in enumerate(found.probes) if x is found.best), len(r.probes) - 1)
    probe = r.probes[index]
    s = summarize(probe, r.rt_limit)
    doc = dbbench_envelope("TPROC-C", "dbbench o2c", r.created, r.engine, r.kit_version, salt="o2c")
    display = doc["job"]["database_display"]
    doc["report_hints"]["title"] = f"{display} dbbench o2c (unofficial, TPROC-C-like) Report"
    doc["report_hints"]["primary_result_metrics"] = ["NOPM", "TPM"]
    doc["report_hints"]["workload"] = "dbbench o2c (unofficial): not TPROC-C"
    doc["disclaimer"]["text"] = (
        "This artifact was written by dbbench from a dbbench o2c run (an SD-like "
        "order-to-cash dialog workload), not by HammerDB and not from a TPROC-C run. It uses "
        "HammerDB's TPROC-C layout only so that HammerDB's tools can read it: NOPM holds o2c "
        "orders invoiced per minute, TPM o2c dialog steps per minute. " + O2C_DISCLAIMER
    )
    doc["benchmark_config"] = {
        "workload": "dbbench o2c (unofficial)",
        "warehouses": None,  # o2c has no warehouses: its data are TPC-H's at a scale factor
        "scale_factor": int_or_float(r.scale_factor),
        "virtual_users": probe.users,
        "rampup_minutes": round(probe.rampup / 60.0, 4),
        "duration_minutes": round((probe.window_end - probe.window_start) / 60.0, 4),
        "think_seconds": probe.think,
        "think_distribution": probe.think_dist,
        "work_processes": probe.work_processes,
    }
    doc["system"] = system_section(r.system)
    nopm, tpm = round(s.orders_per_hour / 60.0, 3), round(s.steps_per_hour / 60.0, 3)
    doc["result"] = {
        "type": "tproc_c_result",
        "database_display": display,
        "active_virtual_users": probe.logged_on,
        "nopm": int_or_float(nopm),
        "tpm": int_or_float(tpm),
        "nopm_means": "dbbench o2c orders fully processed (invoiced) per minute",
        "tpm_means": "dbbench o2c dialog steps per minute",
        "chart_data": [
            {"metric": "NOPM", "value": int_or_float(nopm)},
            {"metric": "TPM", "value": int_or_float(tpm)},
        ],
    }
    doc["transaction_count"] = {
        "available": bool(s.throughput),
        "series": [
            {
                "name": f"{display} o2c dialog steps/min",
                "database": display,
                "database_display": display,
                "metric": "tpm",
                "points": [
                    {"timestamp": local_time(probe.start + t), "value": round(v * 60.0, 3)}
                    for t, v in s.throughput
                ],
            }
        ]
        if s.throughput
        else [],
    }
    rows = []
    for name, st in s.per_transaction.items():
        if not st.count:
            continue
        row: dict[str, Any] = {"name": name, "calls": st.count}
        for key, value in (
            ("avg_ms", st.avg), ("max_ms", st.max), ("p99_ms", st.p99), ("p95_ms", st.p95),
            ("p50_ms", st.p50),
        ):  # fmt: skip
            if (millis := ms(value)) is not None:
                row[key] = millis
        rows.append(row)
    doc["response_times"] = {"type": "boxplot", "unit": "milliseconds", "rows": rows}
    doc["metrics"] = {"available": False, "cpu_percent": [], "iops": [], "mbps": []}
    doc["dbbench"] = {
        "source": f"dbbench o2c {r.kind}",
        "workload": "dbbench o2c (unofficial), SD-like order-to-cash dialog steps",
        "probe": index,
        "users": probe.users,
        "passed": s.passed,
        "reasons": s.reasons,
        "rt_limit_seconds": r.rt_limit,
        "avg_dialog_response_seconds": None if math.isnan(s.avg_rt) else round(s.avg_rt, 6),
        "dialog_steps_per_hour": round(s.steps_per_hour, 3),
        "orders_per_hour": round(s.orders_per_hour, 3),
        "errors": s.errors,
        "kit_version": r.kit_version,
        "note": (
            "not TPROC-C: o2c's dialog steps and orders are not TPROC-C's transactions and "
            "new orders, so NOPM/TPM here are not comparable with HammerDB TPROC-C results"
        ),
    }
    return doc
