"""The TPC-H run's result model (``dbbench-result``): one JSON document per benchmark run.

This module is the contract between the drivers (which write results) and the reports (which
read them). It depends on nothing but the standard library, so a report can be rebuilt on a
machine with no engine installed. Format history lives in ``docs/result-format.md``; bump
:data:`SCHEMA_VERSION` for any change that an older reader would misread, and teach
:func:`upgrade` to read the older version.

It also states, once, the few facts both sides need: the run directory's file names, the
spec's official scale factors and minimum stream counts, and the kit's version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import (
    Any,
    Literal,
    get_args,
)

from dbbench.reports.model import ResultEnvelope

SCHEMA_VERSION = 4
SCHEMA_NAME = "dbbench-result"
PLANS_FILE = "plans.jsonl.gz"  # the plan of every query as run (:class:`Plans`)
ANSWERS_FILE = "answers.jsonl.gz"  # every query's rows as run (:class:`Answers`)
#: ``config[DISCLOSURE_KEY]``: what the run took from the database for the disclosure (the DDL
#: as executed, ``rows_after_load`` and ``rows_after_test`` per table; ``dbbench disclose``)
DISCLOSURE_KEY = "disclosure"
DUCKDB_FILE = "tpch.duckdb"  # ``--engine duckdb``: the database file inside the run directory

#: Valid scale factors [SPEC 4.1.3]: anything else is not a compliant TPC-H database size.
OFFICIAL_SCALE_FACTORS: tuple[int, ...] = (1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)

#: Minimum number of throughput streams per official scale factor [SPEC 5.3.4, Table 11].
MIN_STREAMS: dict[int, int] = dict(zip(OFFICIAL_SCALE_FACTORS, range(2, 12), strict=True))


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
Status = Literal["ok", "error", "timeout", "cancelled"]  # of one timed interval


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

    @classmethod
    def from_event(cls, event: dict[str, Any]) -> Interval:
        """The interval a journal event records (one of :data:`INTERVAL_EVENTS`: the
        interval's fields, plus ``event`` and ``run``, left out); ``TypeError`` when a field
        is missing."""
        return cls(**{k: v for k, v in event.items() if k in _INTERVAL_FIELDS})


_INTERVAL_FIELDS = frozenset(f.name for f in fields(Interval))
#: The journal's events of a measured interval (``query_end``, ``rf1_end``, ``rf2_end``).
INTERVAL_EVENTS: tuple[str, ...] = tuple(f"{kind}_end" for kind in get_args(IntervalKind))


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
class Reason:
    """One reason a run is not compliant: a stable code and the facts its message names.

    The English text is derived from the code by ``reports.tpch.compliance.message``.
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
    #: host noise: the 1-minute load average, CPU stolen by a hypervisor (% of all cores) and
    #: CPU used by dbbench's own process (% of all cores; an in-process engine's included)
    load1: list[float] = field(default_factory=list)
    cpu_steal: list[float] = field(default_factory=list)
    cpu_kit: list[float] = field(default_factory=list)


#: ``--plans``: none, each query's EXPLAIN, or its plan as executed (an extra untimed pass)
PlanMode = Literal["off", "explain", "analyze"]


#: What differs between two captures of one plan: Q15's view token (``_r<run>_<hex>``),
#: quoted literals (the stream's parameters), numbers (costs, estimates, times), blank runs.
_PLAN_VIEW_TOKEN = re.compile(r"_r\d+_[0-9a-f]{6}\b")
_PLAN_LITERAL = re.compile(r"'(?:[^']|'')*'")
_PLAN_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.IGNORECASE)
_PLAN_BLANKS = re.compile(r"[ \t]+")
#: Box-drawing characters (DuckDB's plan boxes: their widths follow the texts inside them).
_PLAN_BOX = re.compile("[\u2500-\u257f]+")


def plan_shape(text: str) -> str:
    """A plan's text without what changes from one capture of the same plan to the next
    (box drawing too):
    equal shapes are the same plan (stated once: the capture hashes it, the gate and the
    comparisons diff it)."""
    text = _PLAN_VIEW_TOKEN.sub("", text)
    text = _PLAN_NUMBER.sub("#", _PLAN_LITERAL.sub("?", text))
    # blanks squeezed in one pass over the whole text ([ \t] never crosses a line end)
    text = _PLAN_BLANKS.sub(" ", _PLAN_BOX.sub(" ", text))
    return "\n".join(line.rstrip() for line in text.splitlines())


@dataclass
class PlanRecord:
    """The plan of one query of one stream of one run, as run (the same rendered SQL and
    parameters). Its text is in the run's :data:`PLANS_FILE` under the same keys."""

    run: int
    stream: int
    query: int
    sha256: str | None = None  # of the text; None: the EXPLAIN failed (``error``)
    shape: str | None = None  # sha256 of the text without literals, numbers and view tokens
    error: str | None = None


@dataclass
class Plans:
    """Every query's plan, captured after the measured work (never inside a timed
    interval): plans are not measurements, and a failed EXPLAIN leaves the run valid."""

    mode: PlanMode = "explain"  # "analyze": an extra untimed pass executed every query
    file: str = PLANS_FILE  # in the run directory, next to the result
    seconds: float = 0.0  # how long the capture took (after the last run)
    records: list[PlanRecord] = field(default_factory=list)


@dataclass
class AnswerRecord:
    """The output of one query of one stream of one run: its rows are in the run's
    :data:`ANSWERS_FILE` under the same keys; ``sha256`` is the canonical digest (values
    normalised by the spec's column classes: engines that agree digest alike)."""

    run: int
    stream: int
    query: int
    rows: int
    sha256: str


@dataclass
class AnswerCheck:
    """``dbbench verify --answers``'s verdict on the kept outputs: ``checked`` of ``total``
    compared by value with ``reference`` (``disagree`` of them differed), ``not_checked``
    overlapped a refresh function (or followed a failed one) and were not compared."""

    reference: str
    total: int = 0
    checked: int = 0
    disagree: int = 0
    not_checked: int = 0
    created: float = 0.0
    lines: list[str] = field(default_factory=list)  # one per disagreement (the first 100)


@dataclass
class Answers:
    """Every query's output, kept after the measured work (never inside a timed interval).
    ``kept`` false: the run was told not to keep them (``--no-answers``)."""

    kept: bool = True
    file: str = ANSWERS_FILE  # in the run directory, next to the result
    seconds: float = 0.0  # digesting and writing them (after the last run)
    bytes: int = 0  # of the compressed file
    records: list[AnswerRecord] = field(default_factory=list)
    check: AnswerCheck | None = None  # ``dbbench verify --answers``; None: not verified


@dataclass
class QueryPass:
    """One pass of the 22 queries (validation defaults, one session) after the performance
    runs: ``cold`` right after the engine was reopened (and the page cache dropped, where
    the kit may), ``hot`` in a row with the engine warm. Not part of the TPC-H metrics."""

    kind: Literal["cold", "hot"]
    number: int  # 1.. within its kind
    seconds: dict[str, float] = field(default_factory=dict)  # "Q1" -> seconds (completed)
    errors: dict[str, str] = field(default_factory=dict)  # "Q1" -> why it failed
    reopened: bool = False  # the engine was closed and opened again just before
    page_cache: str = ""  # "dropped", or why not (cold passes)


@dataclass
class Passes:
    """Cold and hot passes of a study (``--cold``, ``--repetitions N``), never averaged
    together. ``cold`` says what the cold passes were: ``cold`` (the engine reopened
    before each), ``warm only`` (the kit cannot restart it: no pass claims to be cold),
    ``off`` (not asked for)."""

    cold: Literal["cold", "warm only", "off"] = "off"
    note: str = ""
    passes: list[QueryPass] = field(default_factory=list)


@dataclass
class AcidVerdict:
    """The ACID result of the same engine and configuration attached to the run (``dbbench
    run --acid`` or ``dbbench report --acid``): its verdict and one-line summary."""

    #: passed, failed, incomplete, not run or not supported (``reports.acid``'s verdicts)
    verdict: str
    summary: str
    engine: str = ""
    engine_version: str = ""
    #: the scale factor of the ACID tests' qualification database (SF 1 for a real one)
    scale_factor: float = 0.0
    source: str = ""  # the file it was read from


@dataclass
class BenchmarkResult(
    ResultEnvelope, schema_name=SCHEMA_NAME, schema_version=SCHEMA_VERSION, title="dbbench result"
):
    """One benchmark: configuration, environment, the load test and the two runs."""

    scale_factor: float
    streams: int
    query_version: str = "2.17.3"
    load: LoadResult | None = None
    runs: list[RunResult] = field(default_factory=list)
    compliance: Compliance = field(default_factory=not_evaluated)
    telemetry: Telemetry | None = None  # resource samples (issue 14); None: not sampled
    plans: Plans | None = None  # query plans (issue 23); None: not captured (--plans off)
    passes: Passes | None = None  # a study's cold and hot passes; None: none asked for
    answers: Answers | None = None  # every query's output (issue 35); None: an older result
    acid: AcidVerdict | None = None  # the attached ACID result (issue 36); None: none given

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        return upgrade(data)


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A parsed result of any older schema version, as the current version (a new dict).

    Version 1 -> 2: ``compliance.reasons`` were English sentences; they become reasons with
    the code ``v1-text`` (the sentence kept as the fact ``text``; "not evaluated" becomes
    ``not-evaluated``). ``validation`` was never written by any dbbench and is dropped.

    Version 2 -> 3: ``plans`` (the query plans a run captured) and ``passes`` (a study's cold
    and hot passes); a version 2 result has neither.

    Version 3 -> 4: ``answers`` (every query's output, kept beside the result); a version 3
    result kept none (``None``: "not recorded").
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
    if data.get("schema_version") == 2:
        data["plans"] = None
        data["passes"] = None
        data["schema_version"] = 3
    if data.get("schema_version") == 3:
        data["answers"] = None
        data["schema_version"] = 4
    return data
