"""A JSON Schema (draft 2020-12) of the result file, derived from the model's dataclasses.

Deriving it from :mod:`reports.model` means the schema cannot drift from the code: the
committed copy in docs/result-schema.json is a golden file that a test compares with this
output, so any change to the model shows up as a schema diff in review.
"""

from __future__ import annotations

import dataclasses
import json
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from dbbench.reports.tpch import model

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    Any: {},
}


def _type_schema(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(tp)
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin in (Union, types.UnionType):
        options = [_type_schema(a, defs) for a in get_args(tp)]
        return {"anyOf": options}
    if origin is list:
        (inner,) = get_args(tp)
        return {"type": "array", "items": _type_schema(inner, defs)}
    if origin is dict:
        _, inner = get_args(tp)
        return {"type": "object", "additionalProperties": _type_schema(inner, defs)}
    if tp is type(None):
        return {"type": "null"}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        _define(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    return dict(_SCALARS[tp])


def _define(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    if cls.__name__ in defs:
        return {"$ref": f"#/$defs/{cls.__name__}"}
    defs[cls.__name__] = {}  # reserve the name first: the model may nest itself
    hints = get_type_hints(cls)
    props: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name], defs)
        has_default = not (
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
        if not has_default:
            required.append(f.name)
    doc = (cls.__doc__ or "").strip().splitlines()
    defs[cls.__name__] = {
        "type": "object",
        "description": doc[0] if doc else cls.__name__,
        "properties": props,
        "required": required,
    }
    return {"$ref": f"#/$defs/{cls.__name__}"}


def result_schema() -> dict[str, Any]:
    """The JSON Schema of a result file of the current
    :data:`~reports.tpch.model.SCHEMA_VERSION`."""
    defs: dict[str, Any] = {}
    _define(model.BenchmarkResult, defs)
    root = defs.pop("BenchmarkResult")
    root["properties"]["schema"] = {"const": model.SCHEMA_NAME}
    root["properties"]["schema_version"] = {
        "type": "integer",
        "minimum": 1,
        "maximum": model.SCHEMA_VERSION,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:dbbench:result:v{model.SCHEMA_VERSION}",
        "title": "dbbench benchmark result",
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def result_schema_json() -> str:
    return json.dumps(result_schema(), indent=2) + "\n"
