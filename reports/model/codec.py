"""The result codec: reading JSON once with one-line errors for damage, and rebuilding a
family's dataclasses from it, every value checked against its field's type.

Standard library only: the contract between the drivers (which write results) and the reports
(which read them). No family's dataclasses live here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from types import UnionType
from typing import (
    Any,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from dbbench.reports import inputs

#: Larger than any count, byte size, price or duration a real run records: a number beyond it
#: in a result file is damage (or a crafted file), refused with one line.
MAX_MAGNITUDE = 1e18
#: Deeper than any result the kit writes (a crafted file may nest without end).
MAX_DEPTH = 64


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
    schema's check (:func:`reports.tpch.validation.check_result_data`: the schema is derived from
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


def plain(value: Any) -> Any:
    """``dataclasses.asdict`` of a result, with columnar payloads copied as whole lists: the
    columns of :class:`O2CSteps` (millions of numbers in a long o2c search) are lists of
    plain ints and floats, which ``asdict`` would copy one element at a time (about two thirds
    of the time a 5-million-step result took to write). A dataclass says it is columnar by a
    true ``COLUMNAR`` class attribute."""
    if getattr(value, "COLUMNAR", False) and is_dataclass(value):
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
