"""Which module serves which URL: an explicit table, plus the ``dbbench.engines`` entry points.

An engine module exposes ``connect(url: EngineURL) -> Engine``. Built-in engines are listed in
:data:`ENGINES`; a third-party package adds one with an entry point::

    [project.entry-points."dbbench.engines"]
    myengine = "mypackage.dbbench_engine"

A URL scheme that neither names goes to the generic SQLAlchemy engine, so any dialect
SQLAlchemy knows works without code here. A missing driver is a one-line error with the exact
install command.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL, parse_url, redact

ENTRY_POINT_GROUP = "dbbench.engines"


@dataclass(frozen=True)
class EngineSpec:
    """One engine: its module, the URL form users type, and what it needs installed."""

    name: str
    module: str
    url_form: str
    requires: tuple[str, ...]  # importable modules (the Python drivers)
    install: str  # the exact command that installs them
    schemes: tuple[str, ...] = ()  # URL schemes served, besides ``name`` itself


ENGINES: dict[str, EngineSpec] = {
    "duckdb": EngineSpec(
        "duckdb",
        "dbbench.drivers.engines.duckdb",
        "duckdb (in memory) | duckdb:///file.db",
        ("duckdb",),
        "pip install dbbench",
    ),
    "postgresql": EngineSpec(
        "postgresql",
        "dbbench.drivers.engines.postgresql",
        "postgresql://user:pw@host:5432/db",
        ("psycopg",),
        "pip install 'dbbench[postgresql]'",
        ("postgres",),
    ),
    "mysql": EngineSpec(
        "mysql",
        "dbbench.drivers.engines.mysql",
        "mysql://user:pw@host:3306/db | mariadb://...",
        ("sqlalchemy", "pymysql"),
        "pip install 'dbbench[mysql]'",
        ("mariadb",),
    ),
    "spark": EngineSpec(
        "spark",
        "dbbench.drivers.engines.spark",
        "spark://local[N] | spark://local-cluster[W,C,M] | spark://host:7077 | sc://host:15002",
        ("pyspark", "pandas"),
        "pip install 'dbbench[spark]'",
        ("sc",),
    ),
    "sqlite": EngineSpec(
        "sqlite",
        "dbbench.drivers.engines.sqlalchemy",
        "sqlite:///file.db",
        ("sqlalchemy", "sqlite3"),
        "pip install 'dbbench[sqlite]'",
    ),
    "sqlalchemy": EngineSpec(
        "sqlalchemy",
        "dbbench.drivers.engines.sqlalchemy",
        "any other SQLAlchemy URL",
        ("sqlalchemy",),
        "pip install 'dbbench[sqlalchemy]'",
    ),
}


def _third_party() -> dict[str, EngineSpec]:
    found: dict[str, EngineSpec] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in ENGINES:
            continue  # built-ins win: an installed package cannot hijack a scheme
        dist = ep.dist.name if ep.dist is not None else ep.module.split(".")[0]
        found[ep.name] = EngineSpec(
            ep.name, ep.module, f"{ep.name}://...", (ep.module,), f"pip install {dist}"
        )
    return found


def all_engines() -> dict[str, EngineSpec]:
    """Built-in engines, then those installed through the entry-point group."""
    return {**ENGINES, **_third_party()}


def spec_for(url: EngineURL) -> EngineSpec:
    """The engine that serves a URL's scheme; unknown schemes go to SQLAlchemy."""
    engines = all_engines()
    for spec in engines.values():
        if url.scheme == spec.name or url.scheme in spec.schemes:
            return spec
    return engines["sqlalchemy"]


def installed(spec: EngineSpec) -> bool:
    return all(_importable(m) for m in spec.requires)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def open_engine(url: str | EngineURL, **options: Any) -> Engine:
    """Connect to the engine a URL names; keyword options override query-string options."""
    parsed = parse_url(url) if isinstance(url, str) else url
    if options:
        parsed = parsed.with_options(**options)
    spec = spec_for(parsed)
    missing = [m for m in spec.requires if not _importable(m)]
    if missing:
        raise DriversError(
            f"engine {spec.name!r} needs the Python module {missing[0]!r}, "
            f"which is not installed: {spec.install}"
        )
    try:
        module = importlib.import_module(spec.module)
    except ImportError as exc:
        raise DriversError(
            f"engine {spec.name!r} could not load {spec.module} ({exc}): {spec.install}"
        ) from None
    connect = getattr(module, "connect", None)
    if not callable(connect):
        raise DriversError(f"engine module {spec.module} has no connect(url) function")
    engine = connect(parsed)
    if not isinstance(engine, Engine):
        raise DriversError(f"engine module {spec.module} returned no Engine for {redact(parsed)}")
    return engine


@dataclass(frozen=True)
class EngineInfo:
    """One row of ``dbbench engines``."""

    name: str
    url_form: str
    installed: bool
    install: str
    module: str


def available_engines() -> list[EngineInfo]:
    return [
        EngineInfo(s.name, s.url_form, installed(s), s.install, s.module)
        for s in all_engines().values()
    ]
