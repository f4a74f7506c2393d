"""HammerDB's result model (``dbbench-hammerdb-result``, issue 11)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (
    Any,
    Literal,
)

from dbbench.reports.model import ResultEnvelope, ResultStatus
from dbbench.reports.tpch.model import BenchmarkResult

# --- HammerDB results (issue 11) -----------------------------------------------------------
# A self-contained result type of the same family: a TPROC-C or TPROC-H job of HammerDB, run
# by ``dbbench hammerdb run`` or imported from HammerDB's job store / job-report JSON.

HAMMERDB_SCHEMA_NAME = "dbbench-hammerdb-result"
HAMMERDB_SCHEMA_VERSION = 1

HammerDBBenchmark = Literal["TPROC-C", "TPROC-H"]


@dataclass
class HammerDBTiming:
    """Response times of one TPROC-C transaction type (HammerDB's time profile, all VUs)."""

    name: str  # NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT
    calls: int | None = None
    min_ms: float | None = None
    avg_ms: float | None = None
    max_ms: float | None = None
    total_ms: float | None = None
    p25_ms: float | None = None
    p50_ms: float | None = None
    p75_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    sd: float | None = None
    ratio_pct: float | None = None
    elapsed_ms: float | None = None


@dataclass
class HammerDBCount:
    """One sample of HammerDB's transaction counter (transactions per minute)."""

    timestamp: str  # as HammerDB records it, local time "YYYY-MM-DD HH:MM:SS"
    value: float


@dataclass
class HammerDBQueryTime:
    """One TPROC-H query as a virtual user ran it."""

    query: int  # 1..22
    seconds: float
    vu: int = 1
    query_set: int = 1
    position: int = 0  # 1-based position in the query set, 0 when unknown


@dataclass
class HammerDBResult(
    ResultEnvelope,
    schema_name=HAMMERDB_SCHEMA_NAME,
    schema_version=HAMMERDB_SCHEMA_VERSION,
    title="dbbench HammerDB result",
):
    """A HammerDB TPROC-C or TPROC-H job. ``settings`` never carries a password."""

    benchmark: HammerDBBenchmark
    jobid: str
    database: str  # HammerDB's name of the database: PostgreSQL, MariaDB, MySQL, ...
    hammerdb_version: str = ""
    timestamp: str = ""  # HammerDB's job timestamp
    #: a job is complete or failed (never partial)
    status: ResultStatus = field(default="failed", kw_only=True)
    source: str = "run"  # run | hammer.DB | job-report
    # config (the envelope's): warehouses, virtual_users, ...
    settings: dict[str, dict[str, str]] = field(default_factory=dict)  # HammerDB's dict
    build: dict[str, Any] = field(default_factory=dict)  # jobid, seconds of the schema build
    nopm: float | None = None
    tpm: float | None = None
    active_virtual_users: int | None = None
    response_times: list[HammerDBTiming] = field(default_factory=list)
    transaction_counts: list[HammerDBCount] = field(default_factory=list)
    query_times: list[HammerDBQueryTime] = field(default_factory=list)
    queries: int | None = None
    query_sets: int | None = None
    geomean_seconds: float | None = None
    total_query_seconds: float | None = None


AnyResult = BenchmarkResult | HammerDBResult
