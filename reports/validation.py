"""Check a parsed result file against the result's JSON Schema before anything uses it.

A small validator for the keywords :mod:`reports.schema` emits (``type``, ``enum``,
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


#: the keywords a schema node may hold besides those checked (they say nothing of a value)
_NOTES = frozenset({"description", "title", "$schema", "$id", "$defs"})
_PLAIN = frozenset({str, bool, type(None), dict, list})


@cache
def _fits_all() -> Callable[[Any], bool]:
    """The result schema compiled into Python source (once per process): True only for a
    value :func:`_checker` finds nothing wrong with (False may also be said of a value that
    fits, of a shape the source does not test quickly: :func:`check_result_data` asks the
    full check then, which also names the field)."""
    source = _FitsSource()
    root = source.node(_schema(), "v")
    source.lines += ["def fits(v):", f"    return {root}"]
    exec(compile("\n".join(source.lines), "<result schema>", "exec"), source.ns)
    fits: Callable[[Any], bool] = source.ns["fits"]
    return fits


class _FitsSource:
    """The source of :func:`_fits_all`: an expression per schema node, a function per
    object, array and ``$defs`` entry (no constant of the schema is written into the source:
    names, keys and allowed values are in the namespace ``ns``)."""

    def __init__(self) -> None:
        self.ns: dict[str, Any] = {"_MISSING": object(), "_M": MAX_MAGNITUDE, "_PLAIN": _PLAIN}
        self.lines: list[str] = []
        self.defs: dict[str, str] = {}
        self.count = 0

    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def function(self, body: list[str]) -> str:
        self.count += 1
        name = f"_f{self.count}"
        self.lines += [f"def {name}(v):", *("    " + line for line in body), ""]
        return name

    def node(self, schema: dict[str, Any], v: str) -> str:
        """A boolean expression of the value ``v`` (a name): True only when it fits."""
        keys = set(schema) - _NOTES
        number = f"(type({v}) is float or type({v}) is int) and -_M <= {v} <= _M"
        if not keys:  # anything, but a number must be plausible
            return f"(type({v}) in _PLAIN or ({number}))"
        if keys == {"$ref"}:
            ref = schema["$ref"]
            if not ref.startswith("#/$defs/"):
                return "False"
            name = ref.rsplit("/", 1)[1]
            if name not in self.defs:
                self.defs[name] = f"_d{len(self.defs)}"
                test = self.node(_schema()["$defs"][name], "v")
                self.lines += [f"def {self.defs[name]}(v):", f"    return {test}", ""]
            return f"{self.defs[name]}({v})"
        if keys == {"anyOf"}:
            return "(" + " or ".join(self.node(o, v) for o in schema["anyOf"]) + ")"
        if keys == {"const"} and type(schema["const"]) is str:
            return f"(type({v}) is str and {v} == {self.const(schema['const'])})"
        if keys == {"enum"} and all(type(n) is str for n in schema["enum"]):
            return f"(type({v}) is str and {v} in {self.const(frozenset(schema['enum']))})"
        kind = schema.get("type")
        if kind in ("integer", "number") and keys <= {"type", "minimum", "maximum"}:
            low, high = schema.get("minimum", -MAX_MAGNITUDE), schema.get("maximum", MAX_MAGNITUDE)
            if type(low) not in (int, float) or type(high) not in (int, float):
                return "False"
            if kind == "integer":
                test = f"type({v}) is int"
            else:
                test = f"(type({v}) is float or type({v}) is int)"
            bounds = f"{self.const(low)} <= {v} <= {self.const(high)} and -_M <= {v} <= _M"
            return f"({test} and {bounds})"
        if keys == {"type"} and kind in _SCALAR_TESTS:
            return "(" + _SCALAR_TESTS[kind].format(v=v) + ")"
        if kind == "array" and keys == {"type", "items"}:
            item = self.node(schema["items"], "x")
            body = ["if type(v) is not list:", "    return False", "for x in v:"]
            body += [f"    if not {item}:", "        return False", "return True"]
            return f"{self.function(body)}({v})"
        if kind == "object" and keys == {"type", "additionalProperties"}:
            extra = schema["additionalProperties"]
            if not isinstance(extra, dict):
                return "False"
            item = self.node(extra, "x")
            body = ["if type(v) is not dict:", "    return False", "for x in v.values():"]
            body += [f"    if not {item}:", "        return False", "return True"]
            return f"{self.function(body)}({v})"
        if kind == "object" and keys <= {"type", "properties", "required"}:
            body = ["if type(v) is not dict:", "    return False"]
            for key in schema.get("required", ()):
                body += [f"if {self.const(key)} not in v:", "    return False"]
            for key, sub in schema.get("properties", {}).items():
                body += [f"x = v.get({self.const(key)}, _MISSING)"]
                body += [f"if x is not _MISSING and not {self.node(sub, 'x')}:", "    return False"]
            return f"{self.function([*body, 'return True'])}({v})"
        return "False"  # a shape not tested quickly: the full check decides


_SCALAR_TESTS = {
    "integer": "type({v}) is int and -_M <= {v} <= _M",
    "number": "(type({v}) is float or type({v}) is int) and -_M <= {v} <= _M",
    "string": "type({v}) is str",
    "boolean": "{v} is True or {v} is False",
    "null": "{v} is None",
}


def check_result_data(data: Any, name: str) -> None:
    """Raise :class:`ReportsError` naming the first field that does not fit the schema."""
    if _fits_all()(data):  # the quick test of a value that fits (most do)
        return
    found = _checker()(data)
    if found is not None:
        where = "result" + "".join(reversed(found[0]))
        raise ReportsError(f"{name}: not a valid dbbench result: {where}: {found[1]}")
