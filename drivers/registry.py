"""Which module serves which URL: the engine modules of this package, plus the
``dbbench.engines`` entry points.

An engine is one module: it declares ``ENGINE = EngineSpec(...)`` (name, URL form, the driver
modules it needs and their install command), its DDL rules, the query dialect it speaks, its
typed URL options, and exposes ``connect(url: EngineURL) -> Engine``. Every module of
``dbbench.drivers.engines`` that declares ``ENGINE`` is built in; a third-party package adds
one with an entry point (its module declares ``ENGINE`` the same way, or is described from
the entry point alone)::

    [project.entry-points."dbbench.engines"]
    myengine = "mypackage.dbbench_engine"

The declaration is read from the module's source, not by importing it, so an engine whose
driver is missing is still listed with its install command. A URL scheme that no engine names
goes to the generic SQLAlchemy engine, so any dialect SQLAlchemy knows works without code
here. A missing driver is a one-line error with the exact install command.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from dbbench.drivers import engines as _engines_package
from dbbench.drivers.engine import Engine, EngineSpec, engine_abilities
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL, parse_url, redact

ENTRY_POINT_GROUP = "dbbench.engines"
#: The engine of URL schemes no other engine names.
FALLBACK = "sqlalchemy"
#: Listed first by ``dbbench engines``: the default engine.
DEFAULT = "duckdb"


def declared_spec(module: str, install: str = "") -> EngineSpec | None:
    """The ``ENGINE = EngineSpec(...)`` of a module, read from its source without running
    it; ``None`` when the module has no such declaration (or no source to read). ``install``:
    the command when the declaration names none (a package's own, not the kit's extra)."""
    try:
        found = importlib.util.find_spec(module)
        source = found.loader.get_source(module) if found and found.loader else None  # type: ignore[attr-defined]
    except (ImportError, ValueError, AttributeError, OSError):
        return None
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # importing it will say what is wrong
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["ENGINE"]
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", None) == EngineSpec.__name__
        ):
            return _literal_spec(module, node.value, install)
    return None


def _literal_spec(module: str, call: ast.Call, install: str) -> EngineSpec:
    allowed = {f.name for f in fields(EngineSpec)} - {"module"}
    values: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg not in allowed or call.args:
            raise DriversError(f"{module}: ENGINE = EngineSpec(...) takes keyword arguments only")
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError):
            raise DriversError(
                f"{module}: EngineSpec({keyword.arg}=...) must be a literal value"
            ) from None
    if install:
        values.setdefault("install", install)
    try:
        return EngineSpec(**values, module=module)
    except TypeError as exc:
        raise DriversError(f"{module}: bad ENGINE declaration ({exc})") from None


@cache
def builtin_engines() -> dict[str, EngineSpec]:
    """The engine modules of ``dbbench.drivers.engines``: the default first, the fallback
    last, the others by name."""
    found: list[EngineSpec] = []
    prefix = _engines_package.__name__ + "."
    for info in pkgutil.iter_modules(_engines_package.__path__, prefix):
        spec = declared_spec(info.name)
        if spec is not None:
            found.append(spec)
    found.sort(key=lambda s: (s.name != DEFAULT, s.name == FALLBACK, s.name))
    return {s.name: s for s in found}


def _third_party(builtin: dict[str, EngineSpec]) -> dict[str, EngineSpec]:
    found: dict[str, EngineSpec] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in builtin:
            continue  # built-ins win: an installed package cannot hijack a scheme
        dist = ep.dist.name if ep.dist is not None else ep.module.split(".")[0]
        try:
            declared = declared_spec(ep.module, install=f"pip install {dist}")
        except DriversError:  # a package's broken declaration must not hide the others
            declared = None
        if declared is not None:
            found[ep.name] = replace(declared, name=ep.name)
        else:
            found[ep.name] = EngineSpec(
                ep.name, f"{ep.name}://...", (ep.module,), f"pip install {dist}", module=ep.module
            )
    return found


def all_engines() -> dict[str, EngineSpec]:
    """Built-in engines, then those installed through the entry-point group."""
    builtin = builtin_engines()
    return {**builtin, **_third_party(builtin)}


def spec_for(url: EngineURL) -> EngineSpec:
    """The engine that serves a URL's scheme; unknown schemes go to SQLAlchemy."""
    engines = all_engines()
    for spec in engines.values():
        if url.scheme == spec.name or url.scheme in spec.schemes:
            return spec
    return engines[FALLBACK]


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


def engine_class(spec: EngineSpec) -> type[Engine] | None:
    """The engine class an installed engine's module serves (the most derived one it holds);
    None when its driver is not installed or it cannot be imported."""
    if not installed(spec):
        return None
    try:
        module = importlib.import_module(spec.module)
    except ImportError:
        return None
    found = [
        c for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, Engine) and not inspect.isabstract(c)
    ]  # fmt: skip
    leaves = [c for c in found if not any(o is not c and issubclass(o, c) for o in found)]
    own = [c for c in leaves if c.__module__ == module.__name__] or leaves
    return own[0] if len(own) == 1 else None


@dataclass(frozen=True)
class AvailableEngine:
    """One row of ``dbbench engines`` (the engine of a result is ``reports.model.EngineInfo``).
    ``abilities``: the names of :data:`~dbbench.drivers.engine.ABILITIES` the engine has;
    None when not asked for, or when its driver is not installed."""

    name: str
    url_form: str
    installed: bool
    install: str
    module: str
    abilities: list[str] | None = None


def available_engines(*, abilities: bool = False) -> list[AvailableEngine]:
    """Every engine; with ``abilities``, each installed engine's module is imported to read
    what its class declares."""
    rows = []
    for s in all_engines().values():
        cls = engine_class(s) if abilities else None
        found = engine_abilities(cls) if cls is not None else None
        rows.append(AvailableEngine(s.name, s.url_form, installed(s), s.install, s.module, found))
    return rows
