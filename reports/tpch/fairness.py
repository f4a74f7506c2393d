"""Preflight: is each engine configured to measure itself, or the disk?

A comparison is only as fair as each engine's configuration. From the settings dbbench
already captures (:class:`reports.model.EngineInfo`) and the database's size (measured, or
estimated from the scale factor), one warning line per setting that keeps the working set
off memory: MariaDB's ``innodb_buffer_pool_size`` (128 MiB by default) or PostgreSQL's
``shared_buffers`` (128 MB) against a 1.4 GiB SF 1 database, DuckDB's ``memory_limit`` below
it. Pure: the same lines are printed before a run and listed in its report.

Which setting means what, and a database's bytes per scale factor, are the engine's facts,
stated in its own module (``EngineFacts.preflight``, ``bytes_per_sf``). Reports import no
engine: the facts arrive as plain data (:class:`PreflightFacts`), from the engine through
the ``preflight`` command, or from the result, which records them (``config["preflight"]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dbbench.reports.model import EngineInfo
from dbbench.reports.tpch.model import BenchmarkResult

GIB = 1 << 30
#: An engine that states no bytes per SF is estimated as a row store (tables and keys).
ROW_STORE_PER_SF = int(1.4 * GIB)
#: Where a result records the engine's preflight facts.
CONFIG_KEY = "preflight"


@dataclass(frozen=True)
class Rule:
    """A rule on one captured setting (``drivers.engine.SettingRule``, as plain data)."""

    setting: str
    says: str
    at_least: int | str = "database"
    from_sf: float = 0.0
    ram_share: float | None = None


@dataclass(frozen=True)
class PreflightFacts:
    """An engine's preflight facts: its bytes per SF and its rules."""

    bytes_per_sf: float | None = None
    rules: tuple[Rule, ...] = ()

    @classmethod
    def from_data(cls, data: Any) -> PreflightFacts:
        """From ``EngineFacts.preflight_facts()`` or a result's record of it; anything
        malformed reads as no facts (a report never fails on its disclosure)."""
        if not isinstance(data, dict):
            return cls()
        per_sf = data.get("bytes_per_sf")
        rules: list[Rule] = []
        for item in data.get("rules") or ():
            try:
                rules.append(Rule(**item))
            except TypeError:
                continue
        if not isinstance(per_sf, int | float) or per_sf <= 0:
            per_sf = None
        return cls(per_sf, tuple(rules))


_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "tib": 1 << 40,
}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def size_bytes(text: str | None) -> int | None:
    """``128MB``, ``18.8 GiB``, ``134217728``, ``8kB`` as bytes (1024-based, as engines
    mean them); None when it is not a size."""
    if text is None:
        return None
    m = _SIZE.match(text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _gib(n: int) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB else f"{n / (1 << 20):.0f} MiB"


def database_bytes(engine: EngineInfo, sf: float, per_sf: float | None) -> tuple[int, str]:
    """The database's size and whether it was measured or estimated: the measured size when
    it is the larger (a database still empty, or loaded at a smaller SF, is not the one the
    run will read)."""
    estimate = int((per_sf or ROW_STORE_PER_SF) * sf)
    if engine.storage_bytes and engine.storage_bytes >= estimate:
        return engine.storage_bytes, "measured"
    return estimate, "estimated"


def preflight(
    engine: EngineInfo, sf: float, memory_bytes: int | None, facts: PreflightFacts
) -> list[str]:
    """One line per setting that keeps the working set off memory."""
    size, how = database_bytes(engine, sf, facts.bytes_per_sf)
    db = f"the {_gib(size)} database ({how}, SF {sf:g})"
    out: list[str] = []
    for rule in facts.rules:
        value = size_bytes(engine.settings.get(rule.setting))
        if value is None or sf < rule.from_sf:
            continue
        floor = size if rule.at_least == "database" else rule.at_least
        if not isinstance(floor, int) or value >= floor:
            continue
        if rule.ram_share is not None and memory_bytes and value >= rule.ram_share * memory_bytes:
            continue
        says = rule.says.format(db=db, sf=sf)
        out.append(f"{engine.name}: {rule.setting} {_gib(value)} {says}")
    return out


def result_facts(result: BenchmarkResult) -> PreflightFacts:
    """The preflight facts a result recorded (none in a result written before they were)."""
    return PreflightFacts.from_data(result.config.get(CONFIG_KEY))


def preflight_result(result: BenchmarkResult) -> list[str]:
    """The preflight lines of a saved result (the report's disclosure of them)."""
    return preflight(
        result.engine, result.scale_factor, result.system.memory_bytes, result_facts(result)
    )
