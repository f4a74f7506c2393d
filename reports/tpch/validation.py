"""Check a parsed result file against the result's JSON Schema before anything uses it.

A small validator for the keywords :mod:`reports.tpch.schema` emits (``type``, ``enum``,
``const``, ``anyOf``, ``properties``, ``required``, ``additionalProperties``, ``items``,
``minimum``, ``maximum``, ``$ref``), so a crafted or damaged file (``[]``, a string scale
factor, ``runs: null``) is one clear line instead of a crash deep in a renderer. Numbers
must also be finite and of a plausible size: a measurement of 1e308 seconds is damage.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.schema import result_schema

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


#: a failure: the path to the failing value (innermost part first) and what is wrong
Fail = tuple[list[str], str]
Check = Callable[[Any], Fail | None]


@cache
def _checker() -> Check:
    """The result schema compiled once into nested checks (a result holds thousands of
    intervals: walking the schema's dictionaries for each was most of reading one)."""
    schema = _schema()
    defs: dict[str, Check] = {}
    for name, sub in schema.get("$defs", {}).items():
        defs[name] = _compile(sub, defs)
    return _compile(schema, defs)


_LEAF_KEYS = frozenset({"type", "description", "title"})


def _fits(kind: Any) -> Callable[[Any], bool] | None:
    """A test that a value of type ``kind`` fits (None: no quick test for that type)."""
    if kind == "number":
        return lambda v: (
            (type(v) is float or type(v) is int) and -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE
        )
    if kind == "integer":
        return lambda v: type(v) is int and -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE
    if kind == "string":
        return lambda v: type(v) is str
    if kind == "boolean":
        return lambda v: v is True or v is False
    if kind == "null":
        return lambda v: v is None
    return None


def _leaf(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A quick test that a value fits a scalar ``schema`` (a type, an enum of strings, or
    ``anyOf`` of those), True only when it does; None when there is none for ``schema``."""
    if set(schema) <= _LEAF_KEYS and "type" in schema:
        return _fits(schema["type"])
    if set(schema) <= _LEAF_KEYS | {"enum"} and "enum" in schema and "type" not in schema:
        names = schema["enum"]
        if all(type(n) is str for n in names):
            allowed = frozenset(names)
            return lambda v: type(v) is str and v in allowed
        return None
    if set(schema) <= _LEAF_KEYS | {"anyOf"} and "anyOf" in schema:
        tests = [_leaf(option) for option in schema["anyOf"]]
        if any(t is None for t in tests):
            return None
        return lambda v: any(t(v) for t in tests if t is not None)
    return None


def _compile(schema: dict[str, Any], defs: dict[str, Check], quick: bool = True) -> Check:
    """A check of ``schema``: the first way a value breaks it, None when it fits."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return lambda value: defs[name](value)  # resolved when called: defs may recurse
    fast = _leaf(schema) if quick else None
    if fast is not None:  # most values: one quick test, the full check (its message) on failure
        full = _compile(schema, defs, quick=False)
        return lambda value: None if fast(value) else full(value)
    if "anyOf" in schema:
        options = [_compile(option, defs) for option in schema["anyOf"]]

        def any_of(value: Any) -> Fail | None:
            first = None
            for option in options:
                found = option(value)
                if found is None:
                    return None
                first = first or found
            return first

        return any_of
    has_const, const = "const" in schema, schema.get("const")
    enum = schema.get("enum")
    kind = schema.get("type")
    low, high = schema.get("minimum"), schema.get("maximum")
    required = tuple(schema.get("required", ()))
    properties = {k: _compile(v, defs) for k, v in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties")
    other = _compile(extra, defs) if isinstance(extra, dict) else None
    items = _compile(schema["items"], defs) if "items" in schema else None

    def check(value: Any) -> Fail | None:
        if has_const and value != const:
            return [], f"must be {const!r}"
        if enum is not None and value not in enum:
            return [], f"must be one of {', '.join(map(repr, enum))}"
        if kind is not None and not _type_ok(value, kind):
            return [], f"expected {kind}, got {type(value).__name__}"
        if isinstance(value, float | int) and not isinstance(value, bool):
            if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
                return [], f"{value!r} is not a plausible value"
            if low is not None and value < low:
                return [], f"must be at least {low}"
            if high is not None and value > high:
                return [], f"must be at most {high}"
        if isinstance(value, dict):
            for key in required:
                if key not in value:
                    return [], f"missing {key!r}"
            for key, item in value.items():
                sub = properties.get(key, other)
                if sub is not None:
                    found = sub(item)
                    if found is not None:
                        found[0].append(f".{key}")
                        return found
        if items is not None and isinstance(value, list):
            for n, item in enumerate(value):
                found = items(item)
                if found is not None:
                    found[0].append(f"[{n}]")
                    return found
        return None

    return check


def check_result_data(data: Any, name: str) -> None:
    """Raise :class:`ReportsError` naming the first field that does not fit the schema."""
    found = _checker()(data)
    if found is not None:
        where = "result" + "".join(reversed(found[0]))
        raise ReportsError(f"{name}: not a valid dbbench result: {where}: {found[1]}")
