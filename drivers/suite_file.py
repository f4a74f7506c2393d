"""The suite file of ``dbbench suite``: a small TOML list of engines run under one setting.

```toml
scale_factors = [0.01]     # or scale_factor = 1
streams = 2                # default: the spec minimum of each scale factor
runs = 1                   # performance runs per benchmark (the spec: 2)
repetitions = 1            # benchmarks per engine and scale factor
seed = 1                   # seed0 of every benchmark: every engine gets the same parameters
query_timeout = 600        # seconds, optional
telemetry_interval = 1.0   # seconds, 0: off
baseline = "duckdb"        # the entry the others are compared with (default: the first)

[[engine]]
name = "duckdb"            # a directory name: letters, digits, - and _
url = "duckdb"             # bare duckdb: a database file in the entry's run directory
cost_sheet = "costs.toml"  # optional, relative to the suite file
```

Every mistake is one line naming the file, the line and the field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import all_engines
from dbbench.drivers.url import parse_url
from dbbench.reports import inputs

TOP_KEYS = {
    "scale_factor": "number",
    "scale_factors": "list of numbers",
    "streams": "integer",
    "runs": "integer",
    "repetitions": "integer",
    "seed": "integer",
    "query_timeout": "number",
    "telemetry_interval": "number",
    "baseline": "text",
    "engine": "array of tables ([[engine]])",
}
ENGINE_KEYS = {"name": "text", "url": "text", "cost_sheet": "text"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


@dataclass(frozen=True)
class SuiteEngine:
    name: str
    url: str
    cost_sheet: Path | None = None


@dataclass(frozen=True)
class Suite:
    path: Path
    engines: list[SuiteEngine]
    scale_factors: list[float]
    streams: int | None = None
    runs: int = 1
    repetitions: int = 1
    seed: int = 1
    query_timeout: float | None = None
    telemetry_interval: float | None = 1.0
    baseline: str = ""
    notes: list[str] = field(default_factory=list)


class SuiteFileError(DriversError):
    """A mistake in a suite file; the message names the line and the field."""


def _line_of(text: str, key: str, occurrence: int = 0) -> int | None:
    """The line of the ``occurrence``-th ``key = ...`` in the file (1-based), if found."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=", re.M)
    matches = list(pattern.finditer(text))
    if occurrence < len(matches):
        return text.count("\n", 0, matches[occurrence].start()) + 1
    return None


def _engine_block_line(text: str, index: int) -> int | None:
    matches = list(re.finditer(r"^\s*\[\[\s*engine\s*\]\]", text, re.M))
    if index < len(matches):
        return text.count("\n", 0, matches[index].start()) + 1
    return None


class _Reader:
    def __init__(self, path: Path, text: str) -> None:
        self.path, self.text = path, text
        self.seen: dict[str, int] = {}

    def fail(self, message: str, key: str | None = None, line: int | None = None) -> SuiteFileError:
        if line is None and key is not None:
            line = _line_of(self.text, key, self.seen.get(key, 0))
        where = f"{self.path}" + (f" line {line}" if line else "")
        return SuiteFileError(f"{where}: {message}")

    def number(self, data: dict[str, Any], key: str, positive: bool = True) -> float | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"{key} must be a number, not {value!r}", key)
        if not math.isfinite(value):
            raise self.fail(f"{key} must be a finite number, not {value!r}", key)
        if positive and not value > 0:
            raise self.fail(f"{key} must be positive, not {value!r}", key)
        return float(value)

    def integer(self, data: dict[str, Any], key: str, minimum: int) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(f"{key} must be an integer >= {minimum}, not {value!r}", key)
        return value


def _unknown(reader: _Reader, data: dict[str, Any], known: dict[str, str], where: str) -> None:
    for key in data:
        if key not in known:
            raise reader.fail(f"unknown field {key!r} {where} (known: {', '.join(known)})", key)


def _engine(reader: _Reader, index: int, data: Any) -> SuiteEngine:
    block = _engine_block_line(reader.text, index)
    where = f"in [[engine]] number {index + 1}"
    if not isinstance(data, dict):
        raise reader.fail(f"[[engine]] number {index + 1} must be a table", line=block)
    _unknown(reader, data, ENGINE_KEYS, where)
    for key in ("name", "url"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise reader.fail(
                f"{where}: {key} is missing or not text", key if key in data else None, block
            )
    name, url = data["name"], data["url"].strip()
    if not _NAME.match(name):
        raise reader.fail(
            f"{where}: name {name!r} must be letters, digits, '-', '_' or '.' (a directory name)",
            "name",
        )
    if url != "duckdb":
        try:
            parsed = parse_url(url)
        except DriversError as exc:
            raise reader.fail(f"{where}: url: {exc}", "url") from None
        known = {s for spec in all_engines().values() for s in (spec.name, *spec.schemes)}
        if parsed.scheme not in known and not _sqlalchemy_knows(parsed.drivername):
            raise reader.fail(
                f"{where}: url: unknown engine {parsed.scheme!r} "
                f"(known: {', '.join(sorted(known))}, or any SQLAlchemy dialect)",
                "url",
            )
    sheet = data.get("cost_sheet")
    if sheet is not None and not isinstance(sheet, str):
        raise reader.fail(f"{where}: cost_sheet must be a file name", "cost_sheet")
    sheet_path = _sheet_path(reader, sheet, where) if sheet else None
    if sheet_path is not None and not sheet_path.is_file():
        raise reader.fail(f"{where}: cost_sheet {sheet!r} does not exist", "cost_sheet")
    for key in data:
        reader.seen[key] = reader.seen.get(key, 0) + 1
    return SuiteEngine(name, url, sheet_path)


def _sheet_path(reader: _Reader, sheet: str, where: str) -> Path:
    """A relative cost sheet stays inside the suite file's folder (``..`` and links out of it
    are refused); an absolute path is taken as given, on purpose."""
    if Path(sheet).is_absolute():
        return Path(sheet)
    folder = reader.path.parent.resolve()
    path = (folder / sheet).resolve()
    if not path.is_relative_to(folder):
        raise reader.fail(
            f"{where}: cost_sheet {sheet!r} is outside the suite file's folder "
            "(give an absolute path to use it anyway)",
            "cost_sheet",
        )
    return path


def _sqlalchemy_knows(drivername: str) -> bool:
    try:
        from sqlalchemy.dialects import registry
    except ImportError:
        return False
    try:
        registry.load(drivername.replace("+", "."))
    except Exception:
        return False
    return True


def load_suite(path: Path) -> Suite:
    """Read and check a suite file; raises :class:`SuiteFileError` naming line and field."""
    text = inputs.read_toml_text(path, "suite file", SuiteFileError)
    try:
        data = inputs.parse_toml(text, str(path))
    except inputs.InputError as exc:
        raise SuiteFileError(str(exc)) from None
    reader = _Reader(path, text)
    _unknown(reader, data, TOP_KEYS, "at the top level")
    if "scale_factor" in data and "scale_factors" in data:
        raise reader.fail("give scale_factor or scale_factors, not both", "scale_factors")
    sfs_raw = data.get("scale_factors", [data["scale_factor"]] if "scale_factor" in data else [1])
    if not isinstance(sfs_raw, list) or not sfs_raw:
        raise reader.fail("scale_factors must be a non-empty list of numbers", "scale_factors")
    sfs = []
    for value in sfs_raw:
        sf = reader.number({"scale_factors": value}, "scale_factors")
        assert sf is not None
        sfs.append(sf)
    engines_raw = data.get("engine")
    if not isinstance(engines_raw, list) or not engines_raw:
        raise reader.fail("the suite names no engine: add [[engine]] tables with name and url")
    engines = [_engine(reader, i, e) for i, e in enumerate(engines_raw)]
    names = [e.name for e in engines]
    for name in names:
        if names.count(name) > 1:
            raise reader.fail(f"two engines are named {name!r}", "name")
    baseline = data.get("baseline", names[0])
    if baseline not in names:
        raise reader.fail(
            f"baseline {baseline!r} is not an engine of this suite ({', '.join(names)})",
            "baseline",
        )
    telemetry = reader.number(data, "telemetry_interval", positive=False)
    if telemetry is not None and telemetry < 0:
        raise reader.fail("telemetry_interval must be >= 0", "telemetry_interval")
    return Suite(
        path=path,
        engines=engines,
        scale_factors=sfs,
        streams=reader.integer(data, "streams", 1),
        runs=reader.integer(data, "runs", 1) or 1,
        repetitions=reader.integer(data, "repetitions", 1) or 1,
        seed=reader.integer(data, "seed", 0) if "seed" in data else 1,  # type: ignore[arg-type]
        query_timeout=reader.number(data, "query_timeout"),
        telemetry_interval=1.0 if telemetry is None else (telemetry or None),
        baseline=baseline,
    )
