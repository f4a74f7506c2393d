"""The envelope every result family shares (:class:`ResultEnvelope`: write, read, upgrade from
every earlier schema version), the status vocabulary, the engine and the system, the run
directory's shared file names and the kit's version.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import (
    Any,
    ClassVar,
    Literal,
    TypeVar,
)

from dbbench.reports import safeio
from dbbench.reports.model.codec import (
    _ABSENT,
    _json_kind,
    _rebuild,
    _shown,
    built,
    check_depth,
    check_plausible,
    plain,
    read_json,
)

#: The files of a run directory (``dbbench run --out DIR``).
RESULT_FILE = "result.json"
JOURNAL_FILE = "journal.jsonl"
REPORT_MD_FILE = "report.md"
REPORT_HTML_FILE = "report.html"
SUMMARY_FILE = "summary.txt"


#: The kit's version when it runs from a source tree that is not installed.
UNKNOWN_VERSION = "0.0.0+unknown"


def kit_version() -> str:
    """The installed dbbench version (the one every result and loaded database records)."""
    try:
        return version("dbbench")
    except PackageNotFoundError:
        return UNKNOWN_VERSION


#: The status of a result (and of an o2c probe), one vocabulary for every family: ``complete``
#: (everything planned was measured), ``partial`` (stopped or broken part-way: what was
#: measured is kept), ``failed`` (nothing usable was measured).
ResultStatus = Literal["complete", "partial", "failed"]


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


@dataclass(kw_only=True)
class ResultEnvelope:
    """What every result family shares: the envelope around the family's own payload.

    The envelope's fields (:data:`ENVELOPE_FIELDS`: the schema name and version, the kit's
    version, the engine and the system, when it was created, its :data:`ResultStatus`, the
    errors and the configuration) are declared here once, keyword-only, so they head every
    family's file and a family's dataclass declares only its own payload after them (a
    family whose status starts otherwise than ``partial`` says so in its own ``status``
    field). This base gives
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

    def __init_subclass__(
        cls,
        *,
        schema_name: str | None = None,
        schema_version: int | None = None,
        title: str | None = None,
        **kwargs: Any,
    ) -> None:
        """A family declares its schema name, version and title in its class statement:
        ``class X(ResultEnvelope, schema_name=..., schema_version=..., title=...)``."""
        super().__init_subclass__(**kwargs)
        if schema_name is not None:
            cls.SCHEMA_NAME = schema_name
        if schema_version is not None:
            cls.SCHEMA_VERSION = schema_version
        if title is not None:
            cls.TITLE = title

    schema: str = ""  # the family's SCHEMA_NAME, filled in when constructed
    schema_version: int = 0  # likewise its SCHEMA_VERSION (a file read is upgraded to it)
    kit_version: str
    engine: EngineInfo
    system: SystemInfo
    created: float = 0.0
    status: ResultStatus = "partial"
    errors: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.schema = self.schema or self.SCHEMA_NAME
        self.schema_version = self.schema_version or self.SCHEMA_VERSION

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
