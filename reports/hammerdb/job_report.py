"""A HammerDB result as HammerDB's job report again (``Family.job_report`` of HammerDB)."""

from __future__ import annotations

from typing import Any

from dbbench.reports.hammerdb.job_format import (
    CONFIG_KEYS,
    TIMING,
    display_name,
    envelope,
    int_or_float,
    local_time,
    producer,
    query_rows,
    system_section,
    tproch_result,
)
from dbbench.reports.hammerdb.model import HammerDBResult


def hammerdb_job_report(r: HammerDBResult) -> dict[str, Any]:
    doc = envelope(
        r.benchmark,
        r.jobid,
        producer("HammerDB", r.hammerdb_version, r.benchmark),
        r.engine,
        r.timestamp or local_time(r.created),
        r.database or display_name(r.engine),
        r.kit_version,
    )
    config = {k: v for k, v in r.config.items() if k in CONFIG_KEYS}
    doc["benchmark_config"] = config
    doc["system"] = system_section(r.system)
    display = doc["job"]["database_display"]
    if r.benchmark == "TPROC-C":
        result: dict[str, Any] = {}
        if r.nopm is not None and r.tpm is not None:
            result = {
                "type": "tproc_c_result",
                "database_display": display,
                "active_virtual_users": r.active_virtual_users,
                "nopm": int_or_float(r.nopm),
                "tpm": int_or_float(r.tpm),
                "chart_data": [
                    {"metric": "NOPM", "value": int_or_float(r.nopm)},
                    {"metric": "TPM", "value": int_or_float(r.tpm)},
                ],
            }
        doc["result"] = result
        doc["transaction_count"] = {
            "available": bool(r.transaction_counts),
            "series": [
                {
                    "name": f"{display} tpm",
                    "database": display,
                    "database_display": display,
                    "metric": "tpm",
                    "points": [
                        {"timestamp": p.timestamp, "value": int_or_float(p.value)}
                        for p in r.transaction_counts
                    ],
                }
            ]
            if r.transaction_counts
            else [],
        }
        doc["response_times"] = {
            "type": "boxplot",
            "unit": "milliseconds",
            "rows": [
                {"name": t.name, **{k: getattr(t, k) for k in TIMING if getattr(t, k) is not None}}
                for t in r.response_times
            ],
        }
    else:
        rows = [q for q in r.query_times if q.vu == 1 and q.query_set == 1] or r.query_times
        doc["result"] = tproch_result(
            display, r.queries, r.query_sets, r.geomean_seconds, r.total_query_seconds
        )
        doc["query_times"] = query_rows([(q.query, q.seconds) for q in rows])
    doc["metrics"] = {"available": False, "cpu_percent": [], "iops": [], "mbps": []}
    return doc
