"""HammerDB's job-report JSON (``hammerdb-job-report-v1``, what HammerDB v6's ``jobs <id>
save`` writes): read one into a :class:`HammerDBResult`, check one against the rules HammerDB's
public results repository applies on submission, and write any dbbench result as one (each
family's mapping, ``Family.job_report``; the layout in :mod:`reports.hammerdb.job_format`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.families import family_of
from dbbench.reports.hammerdb.job_format import BENCHMARKS as BENCHMARKS
from dbbench.reports.hammerdb.job_format import JOB_REPORT_SCHEMA as JOB_REPORT_SCHEMA
from dbbench.reports.hammerdb.job_format import MAX_JOB_REPORT_BYTES as MAX_JOB_REPORT_BYTES
from dbbench.reports.hammerdb.job_format import TIMING
from dbbench.reports.hammerdb.job_format import display_name as display_name
from dbbench.reports.hammerdb.model import (
    HammerDBCount,
    HammerDBQueryTime,
    HammerDBResult,
    HammerDBTiming,
)
from dbbench.reports.model import EngineInfo, SystemInfo


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
            values = {k: _f(row.get(k)) for k in TIMING if k in row}
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


def to_job_report(result: Any) -> dict[str, Any]:
    """Any dbbench result as a ``hammerdb-job-report-v1`` document, by its family's mapping;
    :class:`ReportsError` for a family that has none, :class:`ValueError` for a result that
    cannot be one (an o2c result without a probe)."""
    family = family_of(getattr(result, "schema", None))
    if family is None or family.job_report is None:
        title = family.title if family is not None else type(result).__name__
        raise ReportsError(f"a {title} has no HammerDB job report")
    return family.job_report(result)
