"""The versioned result model: one JSON document per benchmark run.

This module is the contract between the drivers (which write results) and the reports (which
read them). It depends on nothing but the standard library, so a report can be rebuilt on a
machine with no engine installed. Format history lives in ``docs/result-format.md``; bump
:data:`SCHEMA_VERSION` for any change that an older reader would misread, and teach
:func:`upgrade` to read the older version.

It also states, once, the few facts both sides need: the run directory's file names, the
spec's official scale factors and minimum stream counts, and the kit's version.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

SCHEMA_VERSION = 2
SCHEMA_NAME = "dbbench-result"

#: The files of a run directory (``dbbench run --out DIR``).
RESULT_FILE = "result.json"
JOURNAL_FILE = "journal.jsonl"
REPORT_MD_FILE = "report.md"
REPORT_HTML_FILE = "report.html"
SUMMARY_FILE = "summary.txt"
DUCKDB_FILE = "tpch.duckdb"  # ``--engine duckdb``: the database file inside the run directory

#: Valid scale factors [SPEC 4.1.3]: anything else is not a compliant TPC-H database size.
OFFICIAL_SCALE_FACTORS: tuple[int, ...] = (1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)

#: Minimum number of throughput streams per official scale factor [SPEC 5.3.4, Table 11].
MIN_STREAMS: dict[int, int] = dict(zip(OFFICIAL_SCALE_FACTORS, range(2, 12), strict=True))

#: The kit's version when it runs from a source tree that is not installed.
UNKNOWN_VERSION = "0.0.0+unknown"


def kit_version() -> str:
    """The installed dbbench version (the one every result and loaded database records)."""
    try:
        return version("dbbench")
    except PackageNotFoundError:
        return UNKNOWN_VERSION


def is_official_scale_factor(scale_factor: float) -> bool:
    return scale_factor in OFFICIAL_SCALE_FACTORS


def min_streams(scale_factor: float) -> int | None:
    """The spec's minimum S for an official SF; None for an SF the spec does not define."""
    if not is_official_scale_factor(scale_factor):
        return None
    return MIN_STREAMS[int(scale_factor)]


def default_streams(scale_factor: float) -> int:
    """The S a run uses unless told otherwise: the spec's minimum for an official SF; between
    official SFs the lower neighbour's; below SF 1 (where the spec has no rule) SF 1's 2, so
    small runs keep the shape of real ones."""
    best = MIN_STREAMS[OFFICIAL_SCALE_FACTORS[0]]
    for official, streams in MIN_STREAMS.items():
        if scale_factor >= official:
            best = streams
    return best


IntervalKind = Literal["query", "rf1", "rf2"]
Phase = Literal["power", "throughput"]
Status = Literal["ok", "error", "timeout", "cancelled"]


@dataclass
class Interval:
    """One timed interval (spec 5.3.7): a query of a stream, or a refresh function."""

    kind: IntervalKind
    phase: Phase
    stream: int  # 0 = power stream; 1..S throughput streams; for RFs, the pair number
    position: int  # 1-based position in the stream (queries) or pair number (RFs)
    start: float  # Unix epoch seconds, wall clock
    end: float
    seconds: float  # measured with a monotonic clock
    status: Status = "ok"
    query: int | None = None  # 1..22 for queries
    rows: int | None = None  # rows returned (queries) or rows changed (RFs)
    update_set: int | None = None  # RF1/RF2: the update set consumed
    error: str | None = None


@dataclass
class RunResult:
    """One run of the performance test: a power test followed by a throughput test."""

    number: int  # 1 or 2
    streams: int  # S
    seeds: dict[str, int]  # stream id (as text, JSON keys) -> qgen seed
    power_start: float | None = None
    power_end: float | None = None
    throughput_start: float | None = None
    throughput_end: float | None = None
    intervals: list[Interval] = field(default_factory=list)
    params: dict[str, dict[str, list[str]]] = field(
        default_factory=dict
    )  # stream -> query -> values
    update_sets: list[int] = field(default_factory=list)


@dataclass
class LoadResult:
    """The load test (spec 4.3)."""

    start: float
    end: float
    seconds: float
    rows: dict[str, int] = field(default_factory=dict)
    reused: bool = False  # an already loaded database was checked and reused
    steps: dict[str, float] = field(default_factory=dict)  # e.g. "load", "keys", "analyze"


@dataclass
class SystemInfo:
    """The machine the run was measured on."""

    hostname: str = ""
    cpu_model: str = ""
    chips: int | None = None
    cores: int | None = None
    threads: int | None = None
    memory_bytes: int | None = None
    os: str = ""
    kernel: str = ""
    python: str = ""
    dbbench_version: str = ""
    storage: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class EngineInfo:
    """The engine under test. ``url`` never carries a password."""

    name: str
    url: str
    version: str = ""
    dialect: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    storage_bytes: int | None = None


@dataclass
class Reason:
    """One reason a run is not compliant: a stable code and the facts its message names.

    The English text is derived from the code by ``reports.compliance.message``.
    """

    code: str
    facts: dict[str, Any] = field(default_factory=dict)


NOT_EVALUATED = "not-evaluated"


@dataclass
class Compliance:
    """Whether the run may be called TPC-H-derived compliant, and every reason it is not."""

    compliant: bool
    reasons: list[Reason] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        return [r.code for r in self.reasons]


def not_evaluated() -> Compliance:
    return Compliance(False, [Reason(NOT_EVALUATED)])


@dataclass
class Telemetry:
    """Resource samples taken while the benchmark ran (columns: one value per sample).

    ``scope`` is ``host`` when the engine runs on this machine (the samples cover it) and
    ``client`` when it runs elsewhere (they cover only dbbench's side). Rates are per second
    over the interval that ends at ``t[i]``; CPU figures are percentages of all cores.
    """

    version: int = 2  # 2: per-core user/system/iowait (version 1 files lack them)
    source: str = "psutil"
    interval: float = 1.0  # seconds between samples
    scope: Literal["host", "client"] = "host"
    cores: int | None = None
    note: str = ""  # why telemetry is missing or partial
    overhead_seconds: float = 0.0  # CPU time the sampler itself used
    t_start: float = 0.0  # epoch seconds of the first reading: sample 0 covers t_start..t[0]
    t: list[float] = field(default_factory=list)  # epoch seconds
    cpu_user: list[float] = field(default_factory=list)
    cpu_system: list[float] = field(default_factory=list)
    cpu_iowait: list[float] = field(default_factory=list)
    cpu_per_core: list[list[float]] = field(default_factory=list)  # busy % of each core
    cpu_core_user: list[list[float]] = field(default_factory=list)  # % of each core's time
    cpu_core_system: list[list[float]] = field(default_factory=list)
    cpu_core_iowait: list[list[float]] = field(default_factory=list)
    mem_used: list[int] = field(default_factory=list)  # bytes
    disk_read_bps: list[float] = field(default_factory=list)  # bytes/s
    disk_write_bps: list[float] = field(default_factory=list)
    disk_read_iops: list[float] = field(default_factory=list)
    disk_write_iops: list[float] = field(default_factory=list)
    net_sent_bps: list[float] = field(default_factory=list)
    net_recv_bps: list[float] = field(default_factory=list)
    engine: dict[str, list[float]] = field(default_factory=dict)  # the engine's own counters


@dataclass
class BenchmarkResult:
    """One benchmark: configuration, environment, the load test and the two runs."""

    scale_factor: float
    streams: int
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    query_version: str = "2.17.3"
    schema: str = SCHEMA_NAME
    schema_version: int = SCHEMA_VERSION
    created: float = 0.0
    status: Literal["complete", "partial", "failed"] = "partial"
    load: LoadResult | None = None
    runs: list[RunResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    compliance: Compliance = field(default_factory=not_evaluated)
    config: dict[str, Any] = field(default_factory=dict)
    telemetry: Telemetry | None = None  # resource samples (issue 14); None: not sampled

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=False)

    def write(self, path: Path) -> None:
        """Write atomically: a reader never sees a half-written file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json())
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, _default_file_mode())  # mkstemp makes 0600; results are to share
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchmarkResult:
        if data.get("schema") != SCHEMA_NAME:
            raise ValueError(f"not a dbbench result (schema {data.get('schema')!r})")
        version = data.get("schema_version")
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise ValueError(
                f"result schema version {version!r} is newer than this dbbench reads "
                f"({SCHEMA_VERSION}); upgrade dbbench"
            )
        return _build(cls, upgrade(data))

    @classmethod
    def read(cls, path: Path) -> BenchmarkResult:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A parsed result of any older schema version, as the current version (a new dict).

    Version 1 -> 2: ``compliance.reasons`` were English sentences; they become reasons with
    the code ``v1-text`` (the sentence kept as the fact ``text``; "not evaluated" becomes
    ``not-evaluated``). ``validation`` was never written by any dbbench and is dropped.
    """
    data = dict(data)
    if data.get("schema_version") == 1:
        if isinstance(data.get("compliance"), dict):
            compliance = dict(data["compliance"])
            compliance["reasons"] = [
                {"code": NOT_EVALUATED}
                if text == "not evaluated"
                else {"code": "v1-text", "facts": {"text": text}}
                for text in compliance.get("reasons", [])
            ]
            data["compliance"] = compliance
        data.pop("validation", None)
        data["schema_version"] = 2
    return data


def _default_file_mode() -> int:
    """0666 less the process umask: the mode an ordinary ``open(path, "w")`` would give."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


T = TypeVar("T")


def _build(cls: type[T], data: dict[str, Any], where: str = "") -> T:
    """Rebuild nested dataclasses from parsed JSON (unknown keys are ignored), checking every
    value against its field's type: a crafted or damaged file is a ``ValueError`` naming the
    field (``probes[0].users: expected an integer, got 'a'``), never a crash further on."""
    if not isinstance(data, dict):
        raise ValueError(f"{where or 'the file'}: expected an object, got {_shown(data)}")
    hints = get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    missing = []
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name in data:
            kwargs[f.name] = _convert(hints[f.name], data[f.name], _join(where, f.name))
        elif f.default is MISSING and f.default_factory is MISSING:
            missing.append(f.name)
    if missing:
        raise ValueError(f"{where or 'the file'}: missing field(s) {', '.join(missing)}")
    return cls(**kwargs)


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_SCALARS: dict[Any, tuple[str, tuple[type, ...]]] = {
    str: ("a string", (str,)),
    bool: ("true or false", (bool,)),
    int: ("an integer", (int,)),
    float: ("a number", (int, float)),
}


def _convert(tp: Any, value: Any, where: str) -> Any:
    if value is None:
        if tp is Any or type(None) in get_args(tp):
            return None
        raise ValueError(f"{where}: expected a value, got null")
    origin = get_origin(tp)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list, got {_shown(value)}")
        (inner,) = get_args(tp)
        return [_convert(inner, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {_shown(value)}")
        _, inner = get_args(tp)
        return {k: _convert(inner, v, f"{where}.{k}") for k, v in value.items()}
    if origin is Literal:
        if value not in get_args(tp):
            allowed = ", ".join(map(str, get_args(tp)))
            raise ValueError(f"{where}: expected one of {allowed}, got {_shown(value)}")
        return value
    args = [a for a in get_args(tp) if a is not type(None)]
    if args:  # X | None
        (inner,) = args
        return _convert(inner, value, where)
    if is_dataclass(tp):
        return _build(tp, value, where)  # type: ignore[arg-type]
    if tp in _SCALARS:
        what, types = _SCALARS[tp]
        if (isinstance(value, bool) and tp is not bool) or not isinstance(value, types):
            if tp is int and isinstance(value, float) and value.is_integer():
                return int(value)
            raise ValueError(f"{where}: expected {what}, got {_shown(value)}")
        return value
    return value  # Any


# -- o2c: the SD-like order-to-cash dialog workload (a result family of its own) ---------------
O2C_SCHEMA_NAME = "dbbench-o2c-result"
O2C_SCHEMA_VERSION = 1


@dataclass
class O2CSteps:
    """Raw measurements of every dialog step, one list per field (columnar, compact JSON).

    ``step`` 0 is the log-on (not a dialog step of the loop), 1..15 the loop's steps.
    ``due`` is when the step became due (the think time expired), in seconds since the
    probe started; the dialog response time is ``wait + db`` (waiting for a work process,
    then the database call), measured from ``due`` so that a lagging driver cannot hide it.
    """

    step: list[int] = field(default_factory=list)
    user: list[int] = field(default_factory=list)
    due: list[float] = field(default_factory=list)
    wait: list[float] = field(default_factory=list)
    db: list[float] = field(default_factory=list)
    ok: list[int] = field(default_factory=list)  # 1 done, 0 failed


@dataclass
class O2CProbe:
    """One run at a fixed number of users: ramp-up, the measured steady window, ramp-down."""

    users: int
    think: float
    think_dist: str
    work_processes: int
    rampup: float
    start: float  # Unix epoch seconds
    window_start: float  # seconds since start: the steady-state window alone is measured
    window_end: float
    end: float
    status: Literal["complete", "partial", "failed"] = "partial"
    logged_on: int = 0
    steps: O2CSteps = field(default_factory=O2CSteps)
    errors: list[str] = field(default_factory=list)
    driver_cpu_seconds: float | None = None  # the driver process's CPU during the window
    host_cpu_busy: float | None = None  # busy fraction of all host CPUs during the window
    host_cpus: int | None = None
    #: CPU seconds of the database server's processes on this host during the window (None:
    #: not seen: embedded in the driver, on another host, or without psutil)
    server_cpu_seconds: float | None = None
    #: the driver's own lag, seconds from a step's due time (the end of its think time) to
    #: its user task running: near zero unless the driver itself is the bottleneck
    driver_lag_p50: float | None = None
    driver_lag_p99: float | None = None
    driver_lag_max: float | None = None
    #: a CSV file next to the result holding the steps, when the driver died before it
    #: wrote them here (columns: :data:`O2C_JOURNAL_COLUMNS`, no header); read on load
    steps_journal: str | None = None
    #: ``probe``: one step of a search or study; ``confirmation``: the full-length run a
    #: search makes at the user count it found (its verdict decides that count)
    role: Literal["probe", "confirmation"] = "probe"
    #: SD-Parallel: the database nodes (URLs without password) the users were spread over,
    #: round-robin: user ``u`` worked on node ``u % len(nodes)``; empty for one database
    nodes: list[str] = field(default_factory=list)


@dataclass
class O2CResult:
    """An o2c ``run`` (one probe), ``search`` (every probe it made), ``scale`` (a scaling
    study: one probe per user count of a series) or ``nodes`` (an SD-Parallel-style node
    study: per cluster size, the run at the user count its search found)."""

    kind: Literal["run", "search", "scale", "nodes"]
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    scale_factor: float
    seed: int
    rt_limit: float
    schema: str = O2C_SCHEMA_NAME
    schema_version: int = O2C_SCHEMA_VERSION
    created: float = 0.0
    probes: list[O2CProbe] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def write(self, path: Path) -> None:
        """Atomically, like :meth:`BenchmarkResult.write`."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json())
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, _default_file_mode())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> O2CResult:
        if data.get("schema") != O2C_SCHEMA_NAME:
            raise ValueError(f"not a dbbench o2c result (schema {data.get('schema')!r})")
        version = data.get("schema_version")
        if not isinstance(version, int) or version > O2C_SCHEMA_VERSION:
            raise ValueError(
                f"o2c result schema version {version!r} is newer than this dbbench reads "
                f"({O2C_SCHEMA_VERSION}); upgrade dbbench"
            )
        return _build(cls, data)

    @classmethod
    def read(cls, path: Path) -> O2CResult:
        result = cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        for probe in result.probes:
            if probe.steps_journal and not probe.steps.step:
                journal = path.parent / Path(probe.steps_journal).name
                if journal.is_file():
                    probe.steps = _read_journal(journal)
        return result


O2C_JOURNAL_COLUMNS = ("step", "user", "due", "wait", "db", "ok")


def _read_journal(path: Path) -> O2CSteps:
    steps = O2CSteps()
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(",")
        if len(parts) != len(O2C_JOURNAL_COLUMNS):
            continue  # a line cut by the kill
        try:
            step, user, due, wait, db, ok = parts
            row = (int(step), int(user), float(due), float(wait), float(db), int(ok))
        except ValueError:
            continue
        steps.step.append(row[0])
        steps.user.append(row[1])
        steps.due.append(row[2])
        steps.wait.append(row[3])
        steps.db.append(row[4])
        steps.ok.append(row[5])
    return steps


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
class HammerDBResult:
    """A HammerDB TPROC-C or TPROC-H job. ``settings`` never carries a password."""

    benchmark: HammerDBBenchmark
    jobid: str
    database: str  # HammerDB's name of the database: PostgreSQL, MariaDB, MySQL, ...
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    hammerdb_version: str = ""
    schema: str = HAMMERDB_SCHEMA_NAME
    schema_version: int = HAMMERDB_SCHEMA_VERSION
    created: float = 0.0
    timestamp: str = ""  # HammerDB's job timestamp
    status: Literal["complete", "failed"] = "failed"
    source: str = "run"  # run | hammer.DB | job-report
    config: dict[str, Any] = field(default_factory=dict)  # warehouses, virtual_users, ...
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
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=False)

    def write(self, path: Path) -> None:
        """Write atomically, as :meth:`BenchmarkResult.write` does."""
        _write_atomic(path, self.to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HammerDBResult:
        if data.get("schema") != HAMMERDB_SCHEMA_NAME:
            raise ValueError(f"not a dbbench HammerDB result (schema {data.get('schema')!r})")
        version = data.get("schema_version")
        if not isinstance(version, int) or version > HAMMERDB_SCHEMA_VERSION:
            raise ValueError(
                f"HammerDB result schema version {version!r} is newer than this dbbench reads "
                f"({HAMMERDB_SCHEMA_VERSION}); upgrade dbbench"
            )
        return _build(cls, data)

    @classmethod
    def read(cls, path: Path) -> HammerDBResult:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


AnyResult = BenchmarkResult | HammerDBResult


def read_any_result(data: dict[str, Any]) -> AnyResult:
    """A result of any type of the family, chosen by its ``schema`` field."""
    if data.get("schema") == HAMMERDB_SCHEMA_NAME:
        return HammerDBResult.from_dict(data)
    return BenchmarkResult.from_dict(data)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
