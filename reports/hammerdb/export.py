"""HammerDB's job-report JSON (``hammerdb-job-report-v1``, what HammerDB v6's ``jobs <id>
save`` writes): read one into a :class:`HammerDBResult`, write any dbbench result as one, and
check one against the rules HammerDB's public results repository applies on submission.

The layout follows HammerDB v6's ``modules/jobs-1.0.tm``: ``schema``, ``artifact``,
``disclaimer`` (``audited`` false), ``report_hints``, ``job`` (jobid, hdb_version, database,
database_display, release, benchmark, timestamp), ``benchmark_config``, ``system``,
``result``, then ``transaction_count`` and ``response_times`` (TPROC-C) or ``query_times``
(TPROC-H), and ``metrics``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import time
from typing import Any

from dbbench.reports.hammerdb.model import (
    AnyResult,
    HammerDBCount,
    HammerDBQueryTime,
    HammerDBResult,
    HammerDBTiming,
)
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.model import kit_version as current_kit_version
from dbbench.reports.o2c.metrics import DISCLAIMER as O2C_DISCLAIMER
from dbbench.reports.o2c.metrics import summarize, summarize_result
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.analysis import QUERY_COLUMNS
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.summary import build_report

JOB_REPORT_SCHEMA = "hammerdb-job-report-v1"
BENCHMARKS = ("TPROC-C", "TPROC-H")
#: A job report larger than this is refused before it is parsed.
MAX_JOB_REPORT_BYTES = 256 * 2**20
_TIMING = (
    "elapsed_ms", "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms",
    "p75_ms", "p50_ms", "p25_ms", "sd", "ratio_pct",
)  # fmt: skip
_DISCLAIMER_TEXT = (
    "This is a HammerDB result artifact. HammerDB TPROC-C and TPROC-H workloads are derived "
    "from the TPC-C and TPC-H specifications respectively. This result is not audited by the "
    "TPC-Council and is not a TPC result."
)


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def load_job_report(data: bytes) -> Any:
    """Parse a job-report JSON (``NaN``/``Infinity`` refused); :class:`ValueError` names
    what is wrong in one line."""
    if len(data) > MAX_JOB_REPORT_BYTES:
        raise ValueError(f"larger than {MAX_JOB_REPORT_BYTES // 2**20} MB")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at line {exc.lineno}") from None


def display_name(engine: EngineInfo) -> str:
    """The product's name as the result's engine disclosure gives it: the words of its
    version before the version number ("PostgreSQL 15.4" -> "PostgreSQL"), else its name."""
    words = []
    for word in engine.version.split():
        if word[:1].isdigit() or (word[:1] in "vV" and word[1:2].isdigit()):
            break
        words.append(word)
    return " ".join(words) or engine.name


def _timestamp(value: str) -> dt.datetime | None:
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return dt.datetime.strptime(value, fmt)
        except ValueError:
            continue
    return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def validate_job_report(doc: Any) -> list[str]:
    """Every rule HammerDB's results repository checks on a submitted artifact (except its
    file path), plus the shape of the sections dbbench reads. Empty when valid."""
    if not isinstance(doc, dict):
        return ["the JSON root must be an object"]
    errors: list[str] = []
    if doc.get("schema") != JOB_REPORT_SCHEMA:
        errors.append(f"field 'schema' must equal '{JOB_REPORT_SCHEMA}'")
    disclaimer = doc.get("disclaimer")
    if not isinstance(disclaimer, dict):
        errors.append("field 'disclaimer' must exist and be an object")
    elif disclaimer.get("audited") is not False:
        errors.append("field 'disclaimer.audited' must be false")
    job = doc.get("job")
    if not isinstance(job, dict):
        return [*errors, "field 'job' must exist and be an object"]
    for key in ("jobid", "hdb_version", "database", "database_display", "benchmark", "timestamp"):
        if not job.get(key):
            errors.append(f"field 'job.{key}' is required and must be non-empty")
        elif not isinstance(job[key], str):
            errors.append(f"field 'job.{key}' must be a string")
    benchmark = job.get("benchmark")
    if benchmark not in BENCHMARKS:
        errors.append(f"field 'job.benchmark' must be one of {list(BENCHMARKS)}")
    stamp = job.get("timestamp")
    if not isinstance(stamp, str) or _timestamp(stamp) is None:
        errors.append("field 'job.timestamp' must be YYYY-MM-DD HH:MM:SS")
    config = doc.get("benchmark_config")
    if not isinstance(config, dict):
        errors.append("field 'benchmark_config' must exist and be an object")
    result = doc.get("result")
    if not isinstance(result, dict):
        errors.append("field 'result' must exist and be an object")
    if benchmark == "TPROC-C":
        if isinstance(result, dict):
            for key in ("nopm", "tpm"):
                if not _number(result.get(key)):
                    errors.append(f"field 'result.{key}' must exist and be numeric for TPROC-C")
        if isinstance(config, dict):
            for key in ("warehouses", "virtual_users", "rampup_minutes", "duration_minutes"):
                if key not in config:
                    errors.append(f"field 'benchmark_config.{key}' must exist for TPROC-C")
    if benchmark == "TPROC-H" and isinstance(result, dict) and result:
        for key in ("geomean_seconds", "total_query_time_seconds"):
            if key in result and not _number(result[key]):
                errors.append(f"field 'result.{key}' must be numeric for TPROC-H")
    for section in ("response_times", "query_times"):
        part = doc.get(section)
        if part is not None and not (isinstance(part, dict) and isinstance(part.get("rows"), list)):
            errors.append(f"field '{section}.rows' must be a list")
        elif part is not None and not all(isinstance(row, dict) for row in part["rows"]):
            errors.append(f"field '{section}.rows' must hold objects")
    for section in ("system", "transaction_count"):
        if doc.get(section) is not None and not isinstance(doc[section], dict):
            errors.append(f"field '{section}' must be an object")
    series = (
        (doc.get("transaction_count") or {}).get("series")
        if isinstance(doc.get("transaction_count"), dict)
        else None
    )
    if series is not None and not (
        isinstance(series, list)
        and all(isinstance(x, dict) and isinstance(x.get("points", []), list) for x in series)
        and all(isinstance(p, dict) for x in series for p in x.get("points", []))
    ):
        errors.append("field 'transaction_count.series' must be a list of objects with points")
    return errors


# --- import ----------------------------------------------------------------------------------


def _f(value: Any) -> float | None:
    """A finite number, or None."""
    try:
        number = float(value) if _number(value) else float(str(value).replace(",", ""))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _count(value: Any) -> int | None:
    number = _f(value)
    return int(number) if number is not None and 0 <= number < 2**53 else None


def from_job_report(doc: dict[str, Any], *, kit_version: str = "") -> HammerDBResult:
    """A validated job report (see :func:`validate_job_report`) as a dbbench result."""
    job, res = doc["job"], doc.get("result") or {}
    config = dict(doc.get("benchmark_config") or {})
    system = doc.get("system") or {}
    db = str(job.get("database_display") or job.get("database"))
    name = db.lower()
    out = HammerDBResult(
        benchmark=job["benchmark"],
        jobid=str(job["jobid"]),
        database=db,
        engine=EngineInfo(name=name, url=name, version=str(job.get("release") or ""), dialect=name),
        system=SystemInfo(
            hostname=str(system.get("hostname") or ""),
            cpu_model=str(system.get("cpumodel") or ""),
            threads=_count(system.get("cpucount")) or None,
            os=str(system.get("os_name") or ""),
        ),
        kit_version=kit_version,
        hammerdb_version=str(job.get("hdb_version") or ""),
        created=time.time(),
        timestamp=str(job["timestamp"]),
        source="job-report",
        config=config,
    )
    if out.benchmark == "TPROC-C":
        out.nopm, out.tpm = _f(res.get("nopm")), _f(res.get("tpm"))
        out.active_virtual_users = _count(res.get("active_virtual_users"))
        for row in (doc.get("response_times") or {}).get("rows", []):
            values = {k: _f(row.get(k)) for k in _TIMING if k in row}
            values.pop("calls", None)
            out.response_times.append(
                HammerDBTiming(
                    name=str(row.get("name")),
                    calls=_count(row.get("calls")),
                    **values,
                )
            )
        series = (doc.get("transaction_count") or {}).get("series", [])
        for point in series[0].get("points", []) if series else []:
            value = _f(point.get("value"))
            if value is not None:
                out.transaction_counts.append(HammerDBCount(str(point.get("timestamp")), value))
        done = out.nopm is not None
    else:
        out.geomean_seconds = _f(res.get("geomean_seconds"))
        out.total_query_seconds = _f(res.get("total_query_time_seconds"))
        out.queries, out.query_sets = _count(res.get("queries")), _count(res.get("query_sets"))
        for pos, row in enumerate((doc.get("query_times") or {}).get("rows", []), start=1):
            seconds = _f(row.get("seconds"))
            if seconds is None and (ms := _f(row.get("total_ms"))) is not None:
                seconds = ms / 1000.0
            query = _count(row.get("name"))
            if seconds is not None and query is not None:
                out.query_times.append(HammerDBQueryTime(query, seconds, 1, 1, pos))
        done = out.geomean_seconds is not None
    if not done:
        out.errors.append(f"the job report has no {out.benchmark} result")
    elif out.benchmark == "TPROC-C" and not out.nopm:
        out.errors.append("the job completed no new order (0 NOPM)")
    out.status = "complete" if not out.errors else "failed"
    return out


# --- export ----------------------------------------------------------------------------------


#: ``job.hdb_version`` of an artifact no HammerDB made (HammerDB's validator wants a value).
NOT_HAMMERDB = "none"
#: ``job.hdb_version`` of a HammerDB job whose version its job store does not record.
UNKNOWN_VERSION = "unknown"


def _producer(tool: str, version: str, workload: str) -> dict[str, Any]:
    """What made the measurements (machine-readable): the tool, its version, the workload,
    and whether that workload is HammerDB's own."""
    return {
        "tool": tool,
        "version": version,
        "workload": workload,
        "hammerdb_workload": tool == "HammerDB",
    }


def _envelope(
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
            "text": _DISCLAIMER_TEXT,
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


def _system(system: SystemInfo) -> dict[str, Any]:
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


def _local(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch or time.time()))


def _hammerdb_to_report(r: HammerDBResult) -> dict[str, Any]:
    doc = _envelope(
        r.benchmark,
        r.jobid,
        _producer("HammerDB", r.hammerdb_version, r.benchmark),
        r.engine,
        r.timestamp or _local(r.created),
        r.database or display_name(r.engine),
        r.kit_version,
    )
    config = {k: v for k, v in r.config.items() if k in _CONFIG_KEYS}
    doc["benchmark_config"] = config
    doc["system"] = _system(r.system)
    display = doc["job"]["database_display"]
    if r.benchmark == "TPROC-C":
        result: dict[str, Any] = {}
        if r.nopm is not None and r.tpm is not None:
            result = {
                "type": "tproc_c_result",
                "database_display": display,
                "active_virtual_users": r.active_virtual_users,
                "nopm": _int_or_float(r.nopm),
                "tpm": _int_or_float(r.tpm),
                "chart_data": [
                    {"metric": "NOPM", "value": _int_or_float(r.nopm)},
                    {"metric": "TPM", "value": _int_or_float(r.tpm)},
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
                        {"timestamp": p.timestamp, "value": _int_or_float(p.value)}
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
                {"name": t.name, **{k: getattr(t, k) for k in _TIMING if getattr(t, k) is not None}}
                for t in r.response_times
            ],
        }
    else:
        rows = [q for q in r.query_times if q.vu == 1 and q.query_set == 1] or r.query_times
        doc["result"] = _tproch_result(
            display, r.queries, r.query_sets, r.geomean_seconds, r.total_query_seconds
        )
        doc["query_times"] = _query_rows([(q.query, q.seconds) for q in rows])
    doc["metrics"] = {"available": False, "cpu_percent": [], "iops": [], "mbps": []}
    return doc


_CONFIG_KEYS = (
    "warehouses", "virtual_users", "scale_factor", "rampup_minutes", "duration_minutes",
)  # fmt: skip


def _int_or_float(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _tproch_result(
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


def _query_rows(times: list[tuple[int, float]]) -> dict[str, Any]:
    return {
        "type": "bar",
        "unit": "milliseconds",
        "rows": [
            {"name": str(q), "total_ms": round(s * 1000.0, 3), "seconds": round(s, 6)}
            for q, s in times
        ],
    }


def _tpch_to_report(r: BenchmarkResult) -> dict[str, Any]:
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
    doc = _dbbench_envelope(
        "TPROC-H", "dbbench TPC-H power test", r.created, r.engine, r.kit_version
    )
    doc["benchmark_config"] = {"scale_factor": _int_or_float(r.scale_factor), "virtual_users": 1}
    doc["system"] = _system(r.system)
    display = doc["job"]["database_display"]
    doc["result"] = _tproch_result(
        display, len(times), 1 if times else 0,
        None if geo is None else round(geo, 5), round(sum(s for _, s in times), 3),
    )  # fmt: skip
    doc["query_times"] = _query_rows(times)
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


def _dbbench_envelope(
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
    return _envelope(
        benchmark,
        f"DBB{digest}"[:24],
        _producer("dbbench", kit_version, workload),
        engine,
        _local(created),
        display_name(engine),
        kit_version,
    )


def _ms(seconds: float) -> float | None:
    return None if math.isnan(seconds) else round(seconds * 1000.0, 3)


def _o2c_to_report(r: O2CResult) -> dict[str, Any]:
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
    doc = _dbbench_envelope(
        "TPROC-C", "dbbench o2c", r.created, r.engine, r.kit_version, salt="o2c"
    )
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
        "scale_factor": _int_or_float(r.scale_factor),
        "virtual_users": probe.users,
        "rampup_minutes": round(probe.rampup / 60.0, 4),
        "duration_minutes": round((probe.window_end - probe.window_start) / 60.0, 4),
        "think_seconds": probe.think,
        "think_distribution": probe.think_dist,
        "work_processes": probe.work_processes,
    }
    doc["system"] = _system(r.system)
    nopm, tpm = round(s.orders_per_hour / 60.0, 3), round(s.steps_per_hour / 60.0, 3)
    doc["result"] = {
        "type": "tproc_c_result",
        "database_display": display,
        "active_virtual_users": probe.logged_on,
        "nopm": _int_or_float(nopm),
        "tpm": _int_or_float(tpm),
        "nopm_means": "dbbench o2c orders fully processed (invoiced) per minute",
        "tpm_means": "dbbench o2c dialog steps per minute",
        "chart_data": [
            {"metric": "NOPM", "value": _int_or_float(nopm)},
            {"metric": "TPM", "value": _int_or_float(tpm)},
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
                    {"timestamp": _local(probe.start + t), "value": round(v * 60.0, 3)}
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
            if (ms := _ms(value)) is not None:
                row[key] = ms
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


def to_job_report(result: AnyResult | O2CResult) -> dict[str, Any]:
    """Any dbbench result as a ``hammerdb-job-report-v1`` document."""
    if isinstance(result, HammerDBResult):
        return _hammerdb_to_report(result)
    if isinstance(result, O2CResult):
        return _o2c_to_report(result)
    return _tpch_to_report(result)
