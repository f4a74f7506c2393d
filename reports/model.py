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

import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import UnionType
from typing import (
    Any,
    ClassVar,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from dbbench.reports import inputs, safeio

SCHEMA_VERSION = 3
SCHEMA_NAME = "dbbench-result"

#: The files of a run directory (``dbbench run --out DIR``).
RESULT_FILE = "result.json"
JOURNAL_FILE = "journal.jsonl"
REPORT_MD_FILE = "report.md"
REPORT_HTML_FILE = "report.html"
SUMMARY_FILE = "summary.txt"
PLANS_FILE = "plans.jsonl.gz"  # the plan of every query as run (:class:`Plans`)
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
Status = Literal["ok", "error", "timeout", "cancelled"]  # of one timed interval

#: The status of a result (and of an o2c probe), one vocabulary for every family: ``complete``
#: (everything planned was measured), ``partial`` (stopped or broken part-way: what was
#: measured is kept), ``failed`` (nothing usable was measured).
ResultStatus = Literal["complete", "partial", "failed"]


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


#: Larger than any count, byte size, price or duration a real run records: a number beyond it
#: in a result file is damage (or a crafted file), refused with one line.
MAX_MAGNITUDE = 1e18
#: Deeper than any result the kit writes (a crafted file may nest without end).
MAX_DEPTH = 64


class ResultEnvelope:
    """What every result family shares: the envelope around the family's own payload.

    The envelope's fields (:data:`ENVELOPE_FIELDS`: the schema name and version, the kit's
    version, the engine and the system, when it was created, its :data:`ResultStatus`, the
    errors and the configuration) are declared by each family's dataclass in its own place in
    the file (so existing files and constructors are unchanged; a test checks every family
    declares them with these types); the families of o2c users (o2c, mixed), whose files
    begin alike, declare their common head once (:class:`UsersResult`). This base gives
    every family the one implementation of writing (atomically, through
    :mod:`reports.safeio`), reading (once, with one-line errors for damage: not JSON, not
    UTF-8, nested too deeply, ``NaN``/``Infinity`` or numbers beyond :data:`MAX_MAGNITUDE`)
    and upgrading from every earlier schema version (:meth:`upgrade_data`, one step per
    version).
    """

    #: the family's ``schema`` value, current version, and its name in messages
    SCHEMA_NAME: ClassVar[str]
    SCHEMA_VERSION: ClassVar[int]
    TITLE: ClassVar[str]
    #: JSON layout of the file: indented (readable) or compact (large columnar payloads)
    COMPACT: ClassVar[bool] = False

    schema: str
    schema_version: int
    kit_version: str
    engine: EngineInfo
    system: SystemInfo
    created: float
    status: ResultStatus
    errors: list[str]
    config: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return plain(self)  # type: ignore[no-any-return]

    def to_json(self) -> str:
        if self.COMPACT:
            return json.dumps(self.to_dict(), separators=(",", ":"))
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def write(self, path: Path) -> None:
        """Write atomically (a reader never sees a half-written file); never through a
        symbolic link or over a device (:func:`reports.safeio.write_text`)."""
        safeio.write_text(path, self.to_json())

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A parsed file of any earlier schema version, as the current one (a new dict)."""
        return dict(data)

    def check(self) -> None:
        """Raise ``ValueError`` (one line) when the values, though of the right types, cannot
        be a real result of the family (a family overrides it with its own rules)."""

    @classmethod
    def from_dict(cls: type[E], data: Any) -> E:
        """The result in a parsed document (any schema version up to the current one)."""
        return cls._from(data, check_plausible)

    @classmethod
    def from_parsed(cls: type[E], data: Any) -> E:
        """:meth:`from_dict` of a document :func:`read_json` or :func:`parse_json` returned
        (its numbers are checked already: only the depth is)."""
        return cls._from(data, check_depth)

    @classmethod
    def _from(cls: type[E], data: Any, check_values: Callable[[Any], None]) -> E:
        cls._check_envelope(data)
        if check_values is check_depth:
            quick = cls.built_from(data)
            if quick is not None:
                quick.check()
                return quick
        check_values(data)
        result = _rebuild(cls, cls.upgrade_data(data))
        result.check()
        return result

    @classmethod
    def built_from(cls: type[E], data: Any, upgraded: Any = None) -> E | None:
        """The result of a parsed document (``upgraded``: its :meth:`upgrade_data`, if made
        already) by the class's compiled builder (:func:`built`), before :meth:`check`; None
        when the builder does not simply take it, or when the upgrade changed the document
        (then its depth is checked as it was given: :meth:`from_parsed`'s way). A document
        it takes is not nested too deeply and passes the result schema's check."""
        if upgraded is None:
            try:
                upgraded = cls.upgrade_data(data)
            except Exception:  # from_parsed says what it is, in its order
                return None
        if (
            not isinstance(data, dict)
            or not isinstance(upgraded, dict)
            or len(upgraded) != len(data)
            or any(upgraded.get(key, _ABSENT) is not value for key, value in data.items())
        ):
            return None
        return built(cls, upgraded)

    @classmethod
    def read(cls: type[E], path: Path) -> E:
        """The result at ``path``, read once."""
        return cls.from_parsed(read_json(path))

    @classmethod
    def _check_envelope(cls, data: Any) -> None:
        if not isinstance(data, dict):
            raise ValueError(f"not a {cls.TITLE} (a JSON {_json_kind(data)})")
        if data.get("schema") != cls.SCHEMA_NAME:
            raise ValueError(f"not a {cls.TITLE} (schema {_shown(data.get('schema'))})")
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValueError(f"{cls.TITLE}: schema_version {_shown(version)} is not a version")
        if version > cls.SCHEMA_VERSION:
            raise ValueError(
                f"{cls.TITLE} schema version {version!r} is newer than this dbbench reads "
                f"({cls.SCHEMA_VERSION}); upgrade dbbench"
            )


E = TypeVar("E", bound=ResultEnvelope)

#: The envelope's fields, in the order the TPC-H result (the first family) lists them.
ENVELOPE_FIELDS: tuple[str, ...] = tuple(
    name for name, hint in ResultEnvelope.__annotations__.items() if "ClassVar" not in str(hint)
)


def read_json(path: Path) -> Any:
    """The JSON document at ``path``, read once; ``ValueError`` (one line) for anything
    that is not UTF-8 JSON of a plausible shape: ``NaN``/``Infinity``, a number beyond
    :data:`MAX_MAGNITUDE` (``1e400``, a 400-digit integer), nesting deeper than
    :data:`MAX_DEPTH`. ``OSError`` when it cannot be read."""
    raw = inputs.read_bytes(path, inputs.JSON_LIMIT, "result")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not a dbbench result (not UTF-8 text)") from None
    if "\x00" in text:
        raise ValueError("not a dbbench result (binary content)")
    return parse_json(text)


def parse_json(text: str) -> Any:
    """:func:`read_json` of a text."""
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_plausible_float,
            parse_int=_known_int,
        )
    except RecursionError:
        raise ValueError("not a dbbench result (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno}): {exc.msg}") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a plausible value")


def _plausible_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"{_clip(text)} is not a plausible value")
    return value


def _plausible_int(text: str) -> int:
    if len(text) > 20:  # beyond any count or byte size (and cheap to reject before int())
        raise ValueError(f"{_clip(text)} is not a plausible value")
    value = int(text)
    if abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"{_clip(text)} is not a plausible value")
    return value


#: :func:`_plausible_int` of the integers' texts seen (the same few hundred counts, positions
#: and query numbers fill every result: a hit is answered in C, in a fifth of the time of the
#: check; a text refused is checked, and refused, again each time)
_known_int = functools.lru_cache(maxsize=4096)(_plausible_int)


def _clip(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


def check_plausible(data: Any) -> None:
    """Raise ``ValueError`` for nesting deeper than :data:`MAX_DEPTH` or a number that is
    not finite or beyond :data:`MAX_MAGNITUDE` anywhere in ``data`` (parsed JSON; for a
    document not parsed by :func:`parse_json`)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError("not a dbbench result (nested too deeply)")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif (
            isinstance(value, float | int)
            and not isinstance(value, bool)
            and (not math.isfinite(value) or abs(value) > MAX_MAGNITUDE)
        ):
            raise ValueError(f"{_shown(value)} is not a plausible value")


def check_depth(data: Any) -> None:
    """Raise ``ValueError`` for nesting deeper than :data:`MAX_DEPTH` (level by level: a
    result's thousands of objects cost a third of what a stack of (value, depth) pairs did)."""
    if _deeper(data, 0):
        raise ValueError("not a dbbench result (nested too deeply)")


def _deeper(value: Any, depth: int) -> bool:
    """Whether a container nested in ``value`` (at ``depth`` of the document) is deeper than
    :data:`MAX_DEPTH`."""
    level = [value]
    while level:
        if depth > MAX_DEPTH:
            return True
        below: list[Any] = []
        for item in level:
            items = item.values() if isinstance(item, dict) else item
            if _LEAF_TYPES.issuperset(map(type, items)):
                continue  # strings and numbers only (most of a result's objects and lists)
            below.extend([v for v in items if isinstance(v, _CONTAINERS)])
        level = below
        depth += 1
    return False


_CONTAINERS = (dict, list)
_LEAF_TYPES = frozenset({str, int, float, bool, type(None)})


def _json_kind(value: Any) -> str:
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


@dataclass
class BenchmarkResult(ResultEnvelope):
    """One benchmark: configuration, environment, the load test and the two runs."""

    SCHEMA_NAME: ClassVar[str] = SCHEMA_NAME
    SCHEMA_VERSION: ClassVar[int] = SCHEMA_VERSION
    TITLE: ClassVar[str] = "dbbench result"

    scale_factor: float
    streams: int
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    query_version: str = "2.17.3"
    schema: str = SCHEMA_NAME
    schema_version: int = SCHEMA_VERSION
    created: float = 0.0
    status: ResultStatus = "partial"
    load: LoadResult | None = None
    runs: list[RunResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    compliance: Compliance = field(default_factory=not_evaluated)
    config: dict[str, Any] = field(default_factory=dict)
    telemetry: Telemetry | None = None  # resource samples (issue 14); None: not sampled
    plans: Plans | None = None  # query plans (issue 23); None: not captured (--plans off)
    passes: Passes | None = None  # a study's cold and hot passes; None: none asked for

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
    return data


T = TypeVar("T")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's resolved field types, once per class (resolving them is most of the
    time of reading a result)."""
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = get_type_hints(cls)
    return found


_PLANS: dict[type, list[tuple[str, Any, bool]]] = {}


def _plan(cls: type) -> list[tuple[str, Any, bool]]:
    """A dataclass's fields as (name, resolved type, required), once per class."""
    found = _PLANS.get(cls)
    if found is None:
        hints = _hints(cls)
        found = _PLANS[cls] = [
            (f.name, hints[f.name], f.default is MISSING and f.default_factory is MISSING)
            for f in fields(cls)
        ]
    return found


def _build(cls: type[T], data: dict[str, Any], where: str = "") -> T:
    """Rebuild nested dataclasses from parsed JSON (unknown keys are ignored), checking every
    value against its field's type: a crafted or damaged file is a ``ValueError`` naming the
    field (``probes[0].users: expected an integer, got 'a'``), never a crash further on."""
    if not isinstance(data, dict):
        raise ValueError(f"{where or 'the file'}: expected an object, got {_shown(data)}")
    kwargs: dict[str, Any] = {}
    missing = []
    for name, hint, required in _plan(cls):
        if name in data:
            kwargs[name] = _convert(hint, data[name], _join(where, name))
        elif required:
            missing.append(name)
    if missing:
        raise ValueError(f"{where or 'the file'}: missing field(s) {', '.join(missing)}")
    return cls(**kwargs)


def _rebuild(cls: type[T], data: dict[str, Any]) -> T:
    """:func:`_build` of a whole result: by the class's compiled builder when it takes the
    document as it is (:func:`built`), else by :func:`_build` itself, which gives the result
    or the error it always gave (the field paths of its messages are only made then)."""
    result = built(cls, data)
    return result if result is not None else _build(cls, data)


def built(cls: type[T], data: dict[str, Any]) -> T | None:
    """``cls`` of a parsed (and upgraded) document, by its compiled builder: the very
    dataclasses :func:`_build` makes of it; None when the builder does not simply take it
    (then :func:`_build` and the schema check say what is wrong, naming the field; or that
    nothing is). The builder is stricter than both: every value is of the exact type its
    field declares (an integer-valued float in an integer field is left to :func:`_build` to
    convert), every number is plausible (finite, within :data:`MAX_MAGNITUDE`) and nothing is
    nested deeper than :data:`MAX_DEPTH`; so a document it takes also passes the result
    schema's check (:func:`reports.validation.check_result_data`: the schema is derived from
    the same dataclasses) and :func:`check_depth`."""
    try:
        return _fast_builder(cls)(data, 0)  # type: ignore[no-any-return]
    except Exception:  # whatever it was, the checked build and checks say it exactly
        return None


_ABSENT = object()


class _Refit(Exception):
    """A compiled builder met a value it does not simply take (:func:`built`)."""


_FAST: dict[type, Callable[[Any, int], Any]] = {}


def _fast_builder(cls: type) -> Callable[[Any, int], Any]:
    """``cls``'s compiled builder (once per class): ``(document, its depth) -> instance``."""
    found = _FAST.get(cls)
    if found is None:
        gen = _BuilderSource()
        name = gen.builder(cls)
        exec(compile("\n".join(gen.lines), f"<builder of {cls.__name__}>", "exec"), gen.ns)
        found = _FAST[cls] = gen.ns[name]
    return found


#: the exact types a value of a simple field type may have, unconverted (:func:`_convert`
#: returns such a value as it is; any other value is converted, refused, or not simple)
_SIMPLE: dict[Any, frozenset[type]] = {
    str: frozenset({str}),
    int: frozenset({int}),
    float: frozenset({int, float}),
    bool: frozenset({bool}),
}
_NUMBERS = frozenset({int, float})
#: the types of a value of an ``Any`` field that the result schema takes without a look
#: inside (a number must be plausible, a container not too deep)
_OPAQUE = frozenset({str, bool, type(None), dict, list})


class _BuilderSource:
    """The source of the compiled builders of a dataclass and the types under it: a
    function per dataclass and per list or mapping item type, taking a value of the parsed
    file and its depth in the document, and returning it converted as :func:`_convert` does
    (or raising where :func:`built` says). No constant of the source comes from a file:
    names, types and values are in the namespace ``ns``."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {
            "_Refit": _Refit,
            "_M": MAX_MAGNITUDE,
            "_DEPTH": MAX_DEPTH,
            "_NUMBERS": _NUMBERS,
            "_OPAQUE": _OPAQUE,
            "_deeper": _deeper,
            "_ABSENT": _ABSENT,
        }
        self.lines: list[str] = []
        self.done: dict[Any, str] = {}

    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def builder(self, cls: type) -> str:
        name = self.done.get(cls)
        if name is not None:
            return name
        name = self.done[cls] = f"_build_{len(self.done)}"
        body = ["    if type(d) is not dict or depth > _DEPTH:", "        raise _Refit"]
        plan = _plan(cls)
        # the fields passed in order, an absent one as its default (the very object, or its
        # factory's new one, as ``__init__`` takes it): a call by position, not by keyword
        by_position = all(f.init and not f.kw_only for f in fields(cls))
        if not by_position:
            body.append("    kw = {}")
        args = []
        for n, (field_name, hint, required) in enumerate(plan):
            key = self.const(field_name)
            target = f"a{n}" if by_position else f"kw[{key}]"
            args.append(target)
            body += [f"    v = d.get({key}, _ABSENT)", "    if v is not _ABSENT:"]
            body += ["        " + line for line in self.convert(hint, "v", target, "depth + 1")]
            if required:
                body += ["    else:", "        raise _Refit"]
            elif by_position:
                spec = next(f for f in fields(cls) if f.name == field_name)
                if spec.default is not MISSING:
                    default = self.const(spec.default)
                else:
                    default = f"{self.const(spec.default_factory)}()"
                body += ["    else:", f"        {target} = {default}"]
        known = self.const(frozenset(name for name, _, _ in plan))
        body += [  # keys the class does not know: ignored, but their values not too deep
            f"    if not {known}.issuperset(d):",
            "        for k, v in d.items():",
            f"            if k not in {known} and isinstance(v, (dict, list)):",
            "                if _deeper(v, depth + 1):",
            "                    raise _Refit",
        ]
        call = ", ".join(args) if by_position else "**kw"
        body.append(f"    return {self.const(cls)}({call})")
        self.lines += [f"def {name}(d, depth):", *body, ""]
        return name

    def item(self, tp: Any) -> str:
        """A function ``(value, depth) -> converted`` of one item of type ``tp``."""
        if is_dataclass(tp) and isinstance(tp, type):
            return self.builder(tp)
        name = self.done.get(id(tp))
        if name is None:
            name = self.done[id(tp)] = f"_item_{len(self.done)}"
            body = ["    " + line for line in self.convert(tp, "x", "r", "depth")]
            self.lines += [f"def {name}(x, depth):", *body, "    return r", ""]
        return name

    def convert(self, tp: Any, src: str, dst: str, depth: str) -> list[str]:
        """Statements setting ``dst`` to the value ``src`` (at depth ``depth``: an
        expression) of type ``tp`` converted, or raising."""
        fail = "    raise _Refit"
        if tp is Any:
            return [
                f"if type({src}) in _NUMBERS:",
                f"    if not -_M <= {src} <= _M:",
                "    " + fail,
                f"elif type({src}) not in _OPAQUE:",
                fail,
                f"elif type({src}) is dict or type({src}) is list:",
                f"    if _deeper({src}, {depth}):",
                "    " + fail,
                f"{dst} = {src}",
            ]
        simple = _simple(tp)
        if simple is not None:
            lines = [f"if type({src}) not in {self.const(simple)}:", fail]
            if simple & _NUMBERS:  # an int or float field (or optional): a plausible number
                test = f"not -_M <= {src} <= _M"
                if type(None) in simple:
                    test = f"{src} is not None and {test}"
                lines += [f"if {test}:", fail]
            return [*lines, f"{dst} = {src}"]
        origin, args = get_origin(tp), get_args(tp)
        if origin is Literal:
            return [f"if {src} not in {self.const(args)}:", fail, f"{dst} = {src}"]
        if origin in (Union, UnionType) and len(args) == 2 and type(None) in args:
            (inner,) = (a for a in args if a is not type(None))
            lines = self.convert(inner, src, dst, depth)
            return [
                f"if {src} is None:",
                f"    {dst} = None",
                "else:",
                *("    " + s for s in lines),
            ]
        if is_dataclass(tp) and isinstance(tp, type):
            return [f"{dst} = {self.builder(tp)}({src}, {depth})"]
        if origin in (list, dict) and len(args) == (1 if origin is list else 2):
            kind, values = ("list", src) if origin is list else ("dict", f"{src}.values()")
            inner = args[-1]
            lines = [f"if type({src}) is not {kind} or {depth} > _DEPTH:", fail]
            copy = f"{dst} = {kind}({src})"
            kinds = _simple(inner)
            if kinds is not None:
                lines += [f"if not {self.const(kinds)}.issuperset(map(type, {values})):", fail]
                if kinds & _NUMBERS:
                    test = "not -_M <= each <= _M"
                    if type(None) in kinds:
                        test = f"each is not None and {test}"
                    lines += [f"for each in {values}:", f"    if {test}:", "    " + fail]
                return [*lines, copy]
            item = self.item(inner)
            if origin is list:
                return [*lines, f"{dst} = [{item}(x, {depth} + 1) for x in {src}]"]
            return [*lines, f"{dst} = {{k: {item}(x, {depth} + 1) for k, x in {src}.items()}}"]
        return ["raise _Refit"]  # another type: the checked build decides


def _simple(tp: Any) -> frozenset[type] | None:
    """The exact types of the values a field of type ``tp`` takes as they are (``X | None``
    of a simple ``X`` too); None when ``tp`` is not that simple."""
    found = _SIMPLE.get(tp)
    if found is not None:
        return found
    args = get_args(tp)
    if get_origin(tp) in (Union, UnionType) and len(args) == 2 and type(None) in args:
        (inner,) = (a for a in args if a is not type(None))
        kinds = _SIMPLE.get(inner)
        if kinds is not None:
            return kinds | {type(None)}
    return None


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


#: the exact types a list of scalars may hold unconverted
_EXACT: dict[Any, frozenset[type]] = {
    str: frozenset({str}),
    int: frozenset({int}),
    float: frozenset({int, float}),
}

_SHAPES: dict[int, tuple[Any, tuple[Any, ...], tuple[Any, ...], bool, Any]] = {}


def _shape(tp: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...], bool, Any]:
    """``tp``'s origin, arguments, its arguments but None, and whether it is a dataclass:
    once per type (asked for every value of a result; keyed by identity, as hashing a union
    is slow, and checked against ``tp`` itself, the last item)."""
    found = _SHAPES.get(id(tp))
    if found is None or found[4] is not tp:
        args = get_args(tp)
        inner = tuple(a for a in args if a is not type(None))
        found = _SHAPES[id(tp)] = (get_origin(tp), args, inner, is_dataclass(tp), tp)
    return found


def _convert(tp: Any, value: Any, where: str) -> Any:
    origin, targs, optional, dataclass_type, _ = _shape(tp)
    if value is None:
        if tp is Any or type(None) in targs:
            return None
        raise ValueError(f"{where}: expected a value, got null")
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list, got {_shown(value)}")
        (inner,) = targs
        exact = _EXACT.get(inner)
        if exact is not None and all(type(v) in exact for v in value):
            return list(value)  # a list of plain numbers or strings: nothing to convert
        return [_convert(inner, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {_shown(value)}")
        _, inner = targs
        return {k: _convert(inner, v, f"{where}.{k}") for k, v in value.items()}
    if origin is Literal:
        if value not in targs:
            allowed = ", ".join(map(str, targs))
            raise ValueError(f"{where}: expected one of {allowed}, got {_shown(value)}")
        return value
    if optional:  # X | None
        (inner,) = optional
        return _convert(inner, value, where)
    if dataclass_type:
        return _build(tp, value, where)
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
O2C_SCHEMA_VERSION = 2  # 2: ``status`` (derived from the probes; version 1 files lack it)


def plain(value: Any) -> Any:
    """``dataclasses.asdict`` of a result, with columnar payloads copied as whole lists: the
    columns of :class:`O2CSteps` (millions of numbers in a long o2c search) are lists of
    plain ints and floats, which ``asdict`` would copy one element at a time (about two thirds
    of the time a 5-million-step result took to write)."""
    if isinstance(value, O2CSteps):
        return {f.name: list(getattr(value, f.name)) for f in fields(value)}
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


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

    def check(self, where: str) -> None:
        """Raise ``ValueError`` naming ``where`` when the columns cannot be measured steps."""
        columns = (self.step, self.user, self.due, self.wait, self.db, self.ok)
        if len({len(c) for c in columns}) > 1:
            raise ValueError(f"{where}: the columns differ in length")
        if any(v < 0 for v in self.wait) or any(v < 0 for v in self.db):
            raise ValueError(f"{where}: a negative step time")
        if any(v < 0 for v in self.user) or any(not 0 <= v <= 99 for v in self.step):
            raise ValueError(f"{where}: a negative user or an unknown step")


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
    status: ResultStatus = "partial"
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

    def complete_steps(self, folder: Path) -> None:
        """Read the steps from the journal file in ``folder`` when the probe has none (a
        driver that died before writing them left them there); a journal that is a symbolic
        link is not followed."""
        if self.steps_journal and not self.steps.step:
            journal = folder / Path(self.steps_journal).name
            if journal.is_file() and not journal.is_symlink():
                self.steps = _read_journal(journal)


def combined_status(statuses: Iterable[str]) -> ResultStatus:
    """The status of a result made of parts (an o2c result's probes, a mixed result's
    points) from theirs: ``complete`` when every part is, ``failed`` when there is none or
    every one failed, ``partial`` otherwise."""
    seen = list(statuses)
    if seen and all(st == "complete" for st in seen):
        return "complete"
    if not seen or all(st == "failed" for st in seen):
        return "failed"
    return "partial"


def o2c_status(probes: list[O2CProbe]) -> ResultStatus:
    """An o2c result's status, from its probes' (:func:`combined_status`)."""
    return combined_status(p.status for p in probes)


@dataclass
class UsersResult(ResultEnvelope):
    """What the families of simulated o2c users share (:class:`O2CResult`, the mixed
    result): the head of the file, in its order (the kind, the engine, the system, the kit,
    the scale factor, the seed, the response-time limit, the schema), then each family's
    measured parts (its own fields, declared by the family after its ``kind``). The status
    is derived from the parts whenever the result is written (:func:`combined_status`), and
    the o2c steps a driver left in journal files are read back when it is read."""

    COMPACT: ClassVar[bool] = True

    kind: str
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    scale_factor: float
    seed: int
    rt_limit: float
    schema: str = ""  # the family's SCHEMA_NAME, filled in when constructed
    schema_version: int = 0  # likewise its SCHEMA_VERSION (a file read is upgraded to it)
    created: float = 0.0

    def __post_init__(self) -> None:
        self.schema = self.schema or self.SCHEMA_NAME
        self.schema_version = self.schema_version or self.SCHEMA_VERSION

    def parts_status(self) -> ResultStatus:
        """The status the parts make (each family says which its parts are)."""
        raise NotImplementedError

    def o2c_probes(self) -> list[O2CProbe]:
        """The o2c probes among the parts (their steps may be in journal files)."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["status"] = self.parts_status()
        return data

    def check(self) -> None:
        if self.rt_limit <= 0:
            raise ValueError(f"rt_limit: {self.rt_limit!r} is not a response-time limit")

    @classmethod
    def read(cls: type[U], path: Path) -> U:
        """The result, its o2c steps completed from the journal files beside it."""
        result = cls.from_parsed(read_json(path))
        result.complete_steps(path.parent)
        return result

    def complete_steps(self, folder: Path) -> None:
        """Every o2c probe's steps from its journal file in ``folder`` where the result has
        none (:meth:`O2CProbe.complete_steps`: the driver died before writing them; a
        symbolic link is not followed), then the result checked."""
        for probe in self.o2c_probes():
            probe.complete_steps(folder)
        self.check()


U = TypeVar("U", bound=UsersResult)


@dataclass
class O2CResult(UsersResult):
    """An o2c ``run`` (one probe), ``search`` (every probe it made), ``scale`` (a scaling
    study: one probe per user count of a series) or ``nodes`` (an SD-Parallel-style node
    study: per cluster size, the run at the user count its search found)."""

    SCHEMA_NAME: ClassVar[str] = O2C_SCHEMA_NAME
    SCHEMA_VERSION: ClassVar[int] = O2C_SCHEMA_VERSION
    TITLE: ClassVar[str] = "dbbench o2c result"

    kind: Literal["run", "search", "scale", "nodes"]
    probes: list[O2CProbe] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    #: derived from the probes whenever the result is written (:func:`o2c_status`)
    status: ResultStatus = "partial"

    def parts_status(self) -> ResultStatus:
        return o2c_status(self.probes)

    def o2c_probes(self) -> list[O2CProbe]:
        return self.probes

    def check(self) -> None:
        super().check()
        for n, p in enumerate(self.probes):
            where = f"probes[{n}]"
            if p.work_processes < 1:
                raise ValueError(f"{where}.work_processes: must be at least 1")
            if p.users < 0 or p.think < 0 or p.rampup < 0:
                raise ValueError(f"{where}: users, think and rampup must not be negative")
            if p.window_end < p.window_start:
                raise ValueError(f"{where}: window_end is before window_start")
            p.steps.check(f"{where}.steps")

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 -> 2: ``status`` added, derived from the probes' statuses."""
        data = dict(data)
        if data.get("schema_version") == 1:
            probes = data.get("probes")
            statuses = (
                [p.get("status", "partial") for p in probes if isinstance(p, dict)]
                if (isinstance(probes, list))
                else []
            )
            data["status"] = combined_status(statuses)
            data["schema_version"] = 2
        return data


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
        if not all(math.isfinite(v) and abs(v) <= MAX_MAGNITUDE for v in row):
            continue  # damage, not a measurement
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
class HammerDBResult(ResultEnvelope):
    """A HammerDB TPROC-C or TPROC-H job. ``settings`` never carries a password."""

    SCHEMA_NAME: ClassVar[str] = HAMMERDB_SCHEMA_NAME
    SCHEMA_VERSION: ClassVar[int] = HAMMERDB_SCHEMA_VERSION
    TITLE: ClassVar[str] = "dbbench HammerDB result"

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
    status: ResultStatus = "failed"  # a job is complete or failed (never partial)
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


AnyResult = BenchmarkResult | HammerDBResult
