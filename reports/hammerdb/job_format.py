"""The layout of HammerDB's job-report JSON (``hammerdb-job-report-v1``, what HammerDB v6's
``jobs <id> save`` writes), shared by every family's export mapping (``Family.job_report``).

The layout follows HammerDB v6's ``modules/jobs-1.0.tm``: ``schema``, ``artifact``,
``disclaimer`` (``audited`` false), ``report_hints``, ``job`` (jobid, hdb_version, database,
database_display, release, benchmark, timestamp), ``benchmark_config``, ``system``,
``result``, then ``transaction_count`` and ``response_times`` (TPROC-C) or ``query_times``
(TPROC-H), and ``metrics``.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.model import kit_version as current_kit_version

JOB_REPORT_SCHEMA = "hammerdb-job-report-v1"
BENCHMARKS = ("TPROC-C", "TPROC-H")
#: A job report larger than this is refused before it is parsed.
MAX_JOB_REPORT_BYTES = 256 * 2**20
TIMING = (
    "elapsed_ms", "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms",
    "p75_ms", "p50_ms", "p25_ms", "sd", "ratio_pct",
)  # fmt: skip
DISCLAIMER_TEXT = (
    "This is a HammerDB result artifact. HammerDB TPROC-C and TPROC-H workloads are derived "
    "from the TPC-C and TPC-H specifications respectively. This result is not audited by the "
    "TPC-Council and is not a TPC result."
)


def display_name(engine: EngineInfo) -> str:
    """The product's name as the result's engine disclosure gives it: the words of its
    version before the version number ("PostgreSQL 15.4" -> "PostgreSQL"), else its name."""
    words = []
    for word in engine.version.split():
        if word[:1].isdigit() or (word[:1] in "vV" and word[1:2].isdigit()):
            break
        words.append(word)
    return " ".join(words) or engine.name


#: ``job.hdb_version`` of an artifact no HammerDB made (HammerDB's validator wants a value).
NOT_HAMMERDB = "none"
#: ``job.hdb_version`` of a HammerDB job whose version its job store does not record.
UNKNOWN_VERSION = "unknown"


def producer(tool: str, version: str, workload: str) -> dict[str, Any]:
    """What made the measurements (machine-readable): the tool, its version, the workload,
    and whether that workload is HammerDB's own."""
    return {
        "tool": tool,
        "version": version,
        "workload": workload,
        "hammerdb_workload": tool == "HammerDB",
    }


def envelope(
    benchmark: str,
    jobid: str,
    producer: dict[str, Any],
    engine: EngineInfo,
    timestamp: str,
    display: str,
    kit_version: str,
) -> dict[str, Any]:
    made_by_hammerdb = producer["tool"] == "HammerDB"
    hdb_version = (producer["version"] or UNKNOWN_VERSION) if made_by_hammerdb else NOT_HAMMERDB
    if benchmark == "TPROC-C":
        primary = ["NOPM", "TPM"]
    else:
        primary = ["geomean_seconds", "total_query_time_seconds"]
    return {
        "schema": JOB_REPORT_SCHEMA,
        "description": (
            "HammerDB benchmark result artifact. Machine-readable data, report_hints and "
            "analysis_hints are included for reproducible reporting, summary tables and chart "
            "generation."
        ),
        "artifact": {
            "type": "hammerdb-result-json",
            "schema": JOB_REPORT_SCHEMA,
            "source": "dbbench",
            "generated_by": "dbbench hammerdb export",
            "exporter": {"tool": "dbbench", "version": current_kit_version()},
            "produced_by": producer,
            "workload": producer["workload"],
            "visibility": "public",
            "redacted": True,
        },
        "disclaimer": {
            "result_type": "HammerDB result artifact",
            "audited": False,
            "text": DISCLAIMER_TEXT,
            "tpc_trademarks": (
                "TPC-C, tpmC, TPC-H and QphH are trademarks of the Transaction Processing "
                "Performance Council."
            ),
        },
        "report_hints": {
            "title": f"{display} {benchmark} Benchmark Report",
            "primary_result_metrics": primary,
        },
        "job": {
            "jobid": jobid,
            "hdb_version": hdb_version,
            "database": display,
            "database_display": display,
            "release": engine.version,
            "benchmark": benchmark,
            "timestamp": timestamp,
        },
    }


def system_section(system: SystemInfo) -> dict[str, Any]:
    if not system.hostname and not system.cpu_model:
        return {"available": False, "message": "System information not available"}
    out: dict[str, Any] = {"available": True}
    for key, value in (
        ("hostname", system.hostname),
        ("cpumodel", system.cpu_model),
        ("cpucount", str(system.threads) if system.threads else ""),
        ("os_name", system.os),
        ("memory", f"{system.memory_bytes // 2**20} MB" if system.memory_bytes else ""),
    ):
        if value:
            out[key] = value
    return out


def local_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch or time.time()))


CONFIG_KEYS = (
    "warehouses", "virtual_users", "scale_factor", "rampup_minutes", "duration_minutes",
)  # fmt: skip


def int_or_float(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def tproch_result(
    display: str, queries: int | None, sets: int | None, geo: float | None, total: float | None
) -> dict[str, Any]:
    if geo is None:
        return {}
    return {
        "type": "tproc_h_result",
        "database_display": display,
        "queries": queries,
        "query_sets": sets,
        "geomean_seconds": geo,
        "total_query_time_seconds": total,
        "chart_data": [
            {"metric": "Geomean", "value": geo},
            {"metric": "Query Time", "value": total},
        ],
    }


def query_rows(times: list[tuple[int, float]]) -> dict[str, Any]:
    return {
        "type": "bar",
        "unit": "milliseconds",
        "rows": [
            {"name": str(q), "total_ms": round(s * 1000.0, 3), "seconds": round(s, 6)}
            for q, s in times
        ],
    }


def dbbench_envelope(
    benchmark: str,
    workload: str,
    created: float,
    engine: EngineInfo,
    kit_version: str,
    salt: str = "",
) -> dict[str, Any]:
    """The envelope of an artifact dbbench writes from its own result: a job id derived
    from when and where it ran (``DBB`` + hex digits, 24 characters, like HammerDB's)."""
    digest = hashlib.sha1(f"{created}{engine.url}{salt}".encode()).hexdigest()[:24].upper()
    return envelope(
        benchmark,
        f"DBB{digest}"[:24],
        producer("dbbench", kit_version, workload),
        engine,
        local_time(created),
        display_name(engine),
        kit_version,
    )


def ms(seconds: float) -> float | None:
    return None if math.isnan(seconds) else round(seconds * 1000.0, 3)
