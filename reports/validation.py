"""Check a parsed result file against the result's JSON Schema before anything uses it.

A small validator for the keywords :mod:`reports.schema` emits (``type``, ``enum``,
``const``, ``anyOf``, ``properties``, ``required``, ``additionalProperties``, ``items``,
``minimum``, ``maximum``, ``$ref``), so a crafted or damaged file (``[]``, a string scale
factor, ``runs: null``) is one clear line instead of a crash deep in a renderer. Numbers
must also be finite and of a plausible size: a measurement of 1e308 seconds is damage.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.schema import result_schema

#: Larger than any count, byte size, price or duration a real run records.
MAX_MAGNITUDE = 1e18

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


@cache
def _schema() -> dict[str, Any]:
    return result_schema()


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def _problem(value: Any, schema: dict[str, Any], where: str) -> str | None:
    """The first way ``value`` breaks ``schema``, as ``where: what``; None when it fits."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return _problem(value, _schema()["$defs"][name], where)
    if "anyOf" in schema:
        tried = [_problem(value, option, where) for option in schema["anyOf"]]
        return None if None in tried else next(t for t in tried if t is not None)
    if "const" in schema and value != schema["const"]:
        return f"{where}: must be {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: must be one of {', '.join(map(repr, schema['enum']))}"
    kind = schema.get("type")
    if kind is not None and not _type_ok(value, kind):
        return f"{where}: expected {kind}, got {type(value).__name__}"
    if isinstance(value, float | int) and not isinstance(value, bool):
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            return f"{where}: {value!r} is not a plausible value"
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where}: must be at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where}: must be at most {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{where}: missing {key!r}"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                found = _problem(item, sub, f"{where}.{key}")
                if found:
                    return found
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            found = _problem(item, schema["items"], f"{where}[{n}]")
            if found:
                return found
    return None


def check_result_data(data: Any, name: str) -> None:
    """Raise :class:`ReportsError` naming the first field that does not fit the schema."""
    found = _problem(data, _schema(), "result")
    if found is not None:
        raise ReportsError(f"{name}: not a valid dbbench result: {found}")
