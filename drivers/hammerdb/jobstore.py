"""Reading HammerDB's job store (``hammer.DB``, SQLite) into a :class:`HammerDBResult`.

Tables (HammerDB 4.x to 6.x): JOBMAIN (jobid, db, bm, jobdict, timestamp), JOBOUTPUT (jobid,
vu, output), JOBTIMING (per-transaction response times; ``summary=1`` rows cover all virtual
users), JOBTCOUNT (transactions per minute over time), JOBMETRIC (CPU), JOBSYSTEM. TPROC-H
per-query times exist only as output lines.
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.script import DATABASES
from dbbench.reports.hammerdb.model import (
    HammerDBCount,
    HammerDBQueryTime,
    HammerDBResult,
    HammerDBTiming,
)
from dbbench.reports.model import EngineInfo, SystemInfo

REQUIRED_TABLES = ("JOBMAIN", "JOBOUTPUT")
_NOPM = re.compile(
    r"TEST RESULT\s*:\s*System achieved\s+([\d.]+)\s+NOPM from\s+(-?[\d.]+)\s+(.*?)\s*TPM", re.I
)
_ACTIVE = re.compile(r"(\d+)\s+Active Virtual Users configured", re.I)
_QUERY = re.compile(r"query\s+(\d+)\s+completed in\s+([\d.]+)\s+seconds", re.I)
_QSET = re.compile(r"Completed\s+(\d+)\s+query set\(s\) in\s+([\d.]+)\s+seconds", re.I)
_GEO = re.compile(
    r"Geometric mean of query times returning rows\s*\((\d+)\)\s*is\s*\"?([\d.]+)", re.I
)
_DBVERSION = re.compile(r"DBVersion:\s*(.+)")
_ERROR = re.compile(
    r"FINISHED FAILED|^Error|Error in Virtual User|terminated, any pending|Procedure Error", re.I
)
#: HammerDB's TPM on PostgreSQL is the server's commits and rollbacks over every database
#: (``pg_stat_database``): a database dropped during the run takes its counts out of the sum.
NEGATIVE_TPM = (
    "HammerDB's TPM came out negative ({tpm:,.0f} beside {nopm:,.0f} NOPM): it counts the whole "
    "server's transactions, which drop when another database of the server is dropped during "
    "the run; run it where no database is dropped meanwhile"
)
#: A job's first error lines are kept; the rest are counted.
MAX_ERRORS = 20
#: What a damaged or crafted store can raise while it is read (one line, never a traceback).
_DAMAGE = (sqlite3.Error, KeyError, IndexError, ValueError, TypeError, OverflowError)
_TIMING_FIELDS = (
    "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms", "p50_ms", "sd",
    "ratio_pct", "elapsed_ms",
)  # fmt: skip


class JobStoreError(DriversError):
    """Not a HammerDB job store, or not the job asked for."""


def parse_tcl_list(text: str) -> list[str]:
    """Split a Tcl list (braces, double quotes, backslashes) into its words."""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            if depth:
                raise ValueError("unbalanced braces in Tcl list")
            words.append(text[i + 1 : j - 1])
            i = j
        elif text[i] == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            words.append("".join(buf))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            words.append(text[i:j].replace("\\", ""))
            i = j
    return words


def parse_settings(jobdict: str) -> dict[str, dict[str, str]]:
    """HammerDB's two-level settings dict; every password value becomes ``***``."""
    try:
        outer = parse_tcl_list(jobdict)
        settings: dict[str, dict[str, str]] = {}
        for key, inner in zip(outer[::2], outer[1::2], strict=False):
            words = parse_tcl_list(inner)
            settings[key] = {
                k: ("***" if _secret(k) else v)
                for k, v in zip(words[::2], words[1::2], strict=False)
            }
        return settings
    except ValueError:
        return {}


def _secret(key: str) -> bool:
    return key.lower().endswith(("pass", "password", "passwd"))


def _open(path: Path) -> sqlite3.Connection:
    """The store opened read-only by its path (as a ``file:`` URI built from the absolute
    path, so ``#`` or ``?`` in a file name are part of the name, and nothing is created)."""
    if not path.is_file():
        raise JobStoreError(f"no such HammerDB job store: {path}")
    with path.open("rb") as f:
        head = f.read(16)
    if head != b"SQLite format 3\x00":
        raise JobStoreError(f"{path}: not a HammerDB job store (not an SQLite database)")
    try:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
        tables = {str(r[0]).upper() for r in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error as exc:
        raise JobStoreError(f"{path}: not a HammerDB job store ({exc})") from None
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        conn.close()
        raise JobStoreError(f"{path}: not a HammerDB job store (no {', '.join(missing)} table)")
    conn.row_factory = sqlite3.Row
    return conn


def _damaged(path: Path, exc: BaseException) -> JobStoreError:
    text = " ".join(str(exc).split())[:200]
    return JobStoreError(f"{path}: damaged HammerDB job store ({type(exc).__name__}: {text})")


def list_jobs(path: Path) -> list[dict[str, str]]:
    """jobid, db, bm, timestamp, kind (build or run) and result of every job, oldest first."""
    conn = _open(path)
    try:
        jobs = []
        for r in conn.execute(
            "SELECT jobid, db, bm, timestamp FROM JOBMAIN WHERE jobid IS NOT NULL ORDER BY rowid"
        ):
            jobid = str(r["jobid"])
            lines = _output(conn, jobid)
            jobs.append(
                {
                    "jobid": jobid,
                    "db": str(r["db"]),
                    "bm": str(r["bm"]),
                    "timestamp": str(r["timestamp"]),
                    "kind": "run" if _is_run(lines) else "build",
                    "result": _headline(lines),
                }
            )
        return jobs
    except _DAMAGE as exc:
        raise _damaged(path, exc) from None
    finally:
        conn.close()


def _headline(lines: list[tuple[int, str]]) -> str:
    """A job's result in a few words (NOPM, or the geometric mean), else "-"."""
    for _, text in lines:
        if m := _NOPM.search(text):
            return f"{float(m.group(1)):,.0f} NOPM"
        if m := _GEO.search(text):
            return f"geomean {float(m.group(2)):.3f} s"
    return "-"


def _output(conn: sqlite3.Connection, jobid: str) -> list[tuple[int, str]]:
    return [
        (_vu(r["vu"]), str(r["output"]))
        for r in conn.execute(
            "SELECT vu, output FROM JOBOUTPUT WHERE jobid=? ORDER BY rowid", (jobid,)
        )
    ]


def _vu(value: Any) -> int:
    number = _num(value)
    return int(number) if number is not None and abs(number) < 1e9 else 0


def _is_run(lines: list[tuple[int, str]]) -> bool:
    return any(
        _NOPM.search(t) or _GEO.search(t) or _QSET.search(t) or _QUERY.search(t) for _, t in lines
    )


def pick_job(path: Path, jobid: str | None = None) -> str:
    """``jobid`` if the store has it, else the newest benchmark run (not a schema build)."""
    conn = _open(path)
    try:
        ids = [
            str(r[0])
            for r in conn.execute(
                "SELECT jobid FROM JOBMAIN WHERE jobid IS NOT NULL ORDER BY rowid"
            )
        ]
        if jobid is not None:
            if jobid not in ids:
                raise JobStoreError(f"{path}: no job {jobid} (it has {len(ids)} jobs)")
            return str(jobid)
        for candidate in reversed(ids):
            if _is_run(_output(conn, candidate)):
                return str(candidate)
        raise JobStoreError(
            f"{path}: no TPROC-C or TPROC-H run among its {len(ids)} jobs "
            "(schema builds only, or no output recorded)"
        )
    except _DAMAGE as exc:
        raise _damaged(path, exc) from None
    finally:
        conn.close()


def _num(value: Any) -> float | None:
    """A finite number, or None (garbage, NaN and infinities included)."""
    try:
        number = None if value is None or value == "" else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number is not None and math.isfinite(number) else None


def read_job(
    path: Path,
    jobid: str | None = None,
    *,
    kit_version: str = "",
    hammerdb_version: str = "",
    system: SystemInfo | None = None,
    source: str = "hammer.DB",
) -> HammerDBResult:
    """One job of a job store as a dbbench result (the newest run when ``jobid`` is None);
    a damaged or crafted store is a :class:`JobStoreError` (one line)."""
    jobid = pick_job(path, jobid)
    try:
        return _read_job(path, jobid, kit_version, hammerdb_version, system, source)
    except _DAMAGE as exc:
        raise _damaged(path, exc) from None


def _read_job(
    path: Path,
    jobid: str,
    kit_version: str,
    hammerdb_version: str,
    system: SystemInfo | None,
    source: str,
) -> HammerDBResult:
    conn = _open(path)
    try:
        main = conn.execute("SELECT * FROM JOBMAIN WHERE jobid=?", (jobid,)).fetchone()
        lines = _output(conn, jobid)
        tables = {str(r[0]).upper() for r in conn.execute("SELECT name FROM sqlite_master")}

        def rows(table: str, sql: str) -> list[Any]:
            """The job's rows of ``table``; none where this HammerDB version lacks it."""
            return conn.execute(sql, (jobid,)).fetchall() if table in tables else []

        timing = rows(
            "JOBTIMING", "SELECT * FROM JOBTIMING WHERE jobid=? AND summary=1 ORDER BY rowid"
        )
        tcount = rows(
            "JOBTCOUNT", "SELECT counter, timestamp FROM JOBTCOUNT WHERE jobid=? ORDER BY rowid"
        )
        sysrow = next(iter(rows("JOBSYSTEM", "SELECT * FROM JOBSYSTEM WHERE jobid=?")), None)
    finally:
        conn.close()
    if main is None:
        raise JobStoreError(f"{path}: no job {jobid}")
    bm = str(main["bm"])
    benchmark = "TPROC-H" if "H" in bm.upper().split("-")[-1] else "TPROC-C"
    db = str(main["db"])
    settings = parse_settings(str(main["jobdict"] or ""))
    result = HammerDBResult(
        benchmark=benchmark,  # type: ignore[arg-type]
        jobid=jobid,
        database=db,
        engine=_engine(db, settings),
        system=system or SystemInfo(),
        kit_version=kit_version,
        hammerdb_version=hammerdb_version,
        created=time.time(),
        timestamp=str(main["timestamp"]),
        source=source,
        settings=settings,
    )
    if sysrow is not None and not result.system.hostname:
        result.system.hostname = str(sysrow["hostname"] or "")
        result.system.cpu_model = str(sysrow["cpumodel"] or "")
        threads = _num(sysrow["cpucount"])
        result.system.threads = int(threads) if threads and 0 < threads < 1e6 else None
    _read_output(result, lines)
    result.response_times = [_timing(r) for r in timing]
    result.transaction_counts = [
        HammerDBCount(timestamp=str(r["timestamp"]), value=_num(r["counter"]) or 0.0)
        for r in tcount
    ]
    result.config = _config(result, settings)
    done = result.nopm is not None if benchmark == "TPROC-C" else result.geomean_seconds is not None
    if not done:
        result.errors.append(f"job {jobid} has no {benchmark} result in its output")
    elif benchmark == "TPROC-C" and not result.nopm:
        result.errors.append(f"job {jobid} completed no new order (0 NOPM)")
    elif benchmark == "TPROC-C" and result.tpm is not None and result.tpm < 0:
        result.errors.append(NEGATIVE_TPM.format(tpm=result.tpm, nopm=result.nopm))
    result.status = "complete" if done and not result.errors else "failed"
    return result


def _timing(row: sqlite3.Row) -> HammerDBTiming:
    keys = set(row.keys())
    t = HammerDBTiming(name=str(row["procname"]))
    for k in _TIMING_FIELDS:
        if k in keys:
            value = _num(row[k])
            setattr(t, k, int(value) if k == "calls" and value is not None else value)
    return t


def _read_output(result: HammerDBResult, lines: list[tuple[int, str]]) -> None:
    positions: dict[tuple[int, int], int] = {}
    query_set: dict[int, int] = {}
    errors = 0
    for vu, text in lines:
        if m := _NOPM.search(text):
            result.nopm, result.tpm = float(m.group(1)), float(m.group(2))
        elif m := _ACTIVE.search(text):
            result.active_virtual_users = int(m.group(1))
        elif m := _QUERY.search(text):
            qset = query_set.get(vu, 1)
            pos = positions.get((vu, qset), 0) + 1
            positions[(vu, qset)] = pos
            result.query_times.append(
                HammerDBQueryTime(int(m.group(1)), float(m.group(2)), vu, qset, pos)
            )
        elif m := _QSET.search(text):
            result.query_sets = (result.query_sets or 0) + 1
            query_set[vu] = query_set.get(vu, 1) + 1
            result.total_query_seconds = (result.total_query_seconds or 0.0) + float(m.group(2))
        elif m := _GEO.search(text):
            result.queries, result.geomean_seconds = int(m.group(1)), float(m.group(2))
        elif m := _DBVERSION.search(text):
            result.engine.version = m.group(1).strip()
        elif _ERROR.search(text.strip()):
            errors += 1
            if errors <= MAX_ERRORS:
                result.errors.append(text.strip()[:500])
    if errors > MAX_ERRORS:
        more = errors - MAX_ERRORS
        result.errors.append(f"... and {more:,} more error lines in the job's output")


def _engine(db: str, settings: dict[str, dict[str, str]]) -> EngineInfo:
    known = next((d for d in DATABASES.values() if d.display == db), None)
    name = known.engine if known else db.lower()
    prefix = known.db if known else name
    conn = settings.get("connection", {})
    host, port = conn.get(f"{prefix}_host", ""), conn.get(f"{prefix}_port", "")
    flat = {k: v for inner in settings.values() for k, v in inner.items()}
    dbname = next((flat[k] for k in (f"{prefix}_dbase", f"{prefix}_tpch_dbase") if k in flat), "")
    url = f"{name}://{host}{':' + port if port else ''}/{dbname}" if host else name
    return EngineInfo(name=name, url=url, dialect=name)


def _config(result: HammerDBResult, settings: dict[str, dict[str, str]]) -> dict[str, Any]:
    flat = {k.split("_", 1)[-1]: v for inner in settings.values() for k, v in inner.items()}
    cfg: dict[str, Any] = {}

    def num(key: str) -> float | int | None:
        value = _num(flat.get(key))
        if value is None:
            return None
        return int(value) if value.is_integer() else value

    if result.benchmark == "TPROC-C":
        cfg["warehouses"] = num("count_ware")
        cfg["virtual_users"] = result.active_virtual_users or num("num_vu")
        cfg["rampup_minutes"] = num("rampup")
        cfg["duration_minutes"] = num("duration")
        cfg["all_warehouses"] = flat.get("allwarehouse") == "true"
        cfg["keying_and_thinking"] = flat.get("keyandthink") == "true"
        cfg["time_profile"] = flat.get("timeprofile") == "true"
    else:
        cfg["scale_factor"] = num("scale_fact")
        cfg["virtual_users"] = len({q.vu for q in result.query_times}) or None
        cfg["query_sets"] = num("total_querysets")
        cfg["refresh"] = flat.get("refresh_on") == "true"
    return {k: v for k, v in cfg.items() if v is not None}
