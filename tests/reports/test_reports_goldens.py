"""Golden files: the Markdown report and the result JSON Schema.

Refresh both with ``python -m pytest tests/reports --update-goldens`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from reports_fixtures import GOLDEN, ROOT

from dbbench.reports.tpch.costsheet import load_cost_sheet
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.schema import result_schema, result_schema_json

SCHEMA_FILE = ROOT / "docs" / "result-schema.json"


def _compare(path: Path, text: str, update: bool) -> None:
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run pytest tests/reports --update-goldens"
    expected = path.read_text(encoding="utf-8").splitlines()
    got = text.splitlines()
    for n, (want, have) in enumerate(zip(expected, got, strict=False), 1):
        assert have == want, f"{path.name} line {n} differs:\n  golden: {want}\n  now:    {have}"
    assert len(got) == len(expected), f"{path.name}: {len(got)} lines, golden has {len(expected)}"


def test_markdown_report_matches_golden(result: BenchmarkResult, update_goldens: bool) -> None:
    sheet = load_cost_sheet(ROOT / "examples" / "cost-sheets" / "cloud-vm-3y.toml")
    _compare(GOLDEN / "report.md", render(result, "md", sheet), update_goldens)


def test_result_schema_matches_golden(update_goldens: bool) -> None:
    _compare(SCHEMA_FILE, result_schema_json(), update_goldens)


def _check(
    schema: dict[str, object], value: object, defs: dict[str, dict[str, object]], at: str
) -> None:
    """A small validator for the subset of JSON Schema the model uses (no extra deps)."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        _check(defs[name], value, defs, at)
        return
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:  # type: ignore[attr-defined]
            try:
                _check(option, value, defs, at)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{at}: matches no option: {errors}")
    if "const" in schema:
        assert value == schema["const"], at
    if "enum" in schema:
        assert value in schema["enum"], at  # type: ignore[operator]
    kind = schema.get("type")
    checks = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "array": list,
        "object": dict,
        "null": type(None),
    }
    if kind is not None:
        assert isinstance(value, checks[str(kind)]), f"{at}: {value!r} is not {kind}"  # type: ignore[arg-type]
    if kind == "object" and isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):  # type: ignore[attr-defined]
            assert key in value, f"{at}: missing {key}"
        for key, item in value.items():
            sub = props.get(key, schema.get("additionalProperties"))  # type: ignore[attr-defined]
            assert sub is not None, f"{at}: unexpected key {key}"
            _check(sub, item, defs, f"{at}.{key}")
    if kind == "array" and isinstance(value, list):
        for n, item in enumerate(value):
            _check(schema["items"], item, defs, f"{at}[{n}]")  # type: ignore[arg-type]


def test_a_written_result_validates_against_the_schema(
    result: BenchmarkResult, tmp_path: Path
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    schema = result_schema()
    _check(schema, json.loads(path.read_text()), schema["$defs"], "result")
    assert BenchmarkResult.read(path) == result
