"""Crafted or damaged input is one line, never a crash; untrusted text is shown as text
(issue: reliability, items 9 and 10)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports.model import BenchmarkResult


def _set(*path: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


DAMAGE: dict[str, Callable[[dict[str, Any]], None] | str] = {
    "list": "[]",
    "null": "null",
    "deep": "[" * 100_000 + "]" * 100_000,
    "binary": "\udcff",
    "string-sf": _set("scale_factor", value="1"),
    "huge-seconds": _set("runs", 0, "intervals", 0, "seconds", value=1e308),
    "nan-seconds": _set("runs", 0, "intervals", 0, "seconds", value=float("nan")),
    "runs-null": _set("runs", value=None),
    "string-memory": _set("system", "memory_bytes", value="lots"),
    "string-start": _set("runs", 0, "intervals", 0, "start", value="now"),
    "bool-streams": _set("streams", value=True),
}


def _write(result: BenchmarkResult, tmp_path: Path, damage: Any) -> Path:
    path = tmp_path / "result.json"
    if isinstance(damage, str):
        if damage == "\udcff":
            path.write_bytes(b"\xff\xfe\x00binary")
        else:
            path.write_text(damage)
        return path
    result.write(path)
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("name", list(DAMAGE))
@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_damaged_result_is_one_line(
    name: str,
    command: str,
    result: BenchmarkResult,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _write(result, tmp_path, DAMAGE[name])
    assert main([command, str(path)]) == ExitCode.USER_ERROR
    err = capsys.readouterr().err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err


def test_a_binary_cost_sheet_is_one_line(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    sheet = tmp_path / "sheet.toml"
    sheet.write_bytes(b"\x00\x01\xff\xfe binary")
    assert main(["report", str(path), "--cost-sheet", str(sheet)]) == ExitCode.USER_ERROR
    err = capsys.readouterr().err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err


HOSTILE = "[/bold] [red]x[/red] \x1b[31mRED\x1b[0m <script>alert(1)</script> & <img src=x>"


@pytest.fixture()
def hostile(result: BenchmarkResult, tmp_path: Path) -> Path:
    """A result whose strings hold Rich markup, an ANSI escape and HTML."""
    result.engine.version = HOSTILE
    result.engine.settings["database"] = HOSTILE
    result.system.cpu_model = HOSTILE
    result.errors = [f"query failed: {HOSTILE}"]
    path = tmp_path / "result.json"
    result.write(path)
    return path


def test_markup_and_escapes_are_shown_as_text(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["report", str(hostile)], ["compare", str(hostile), str(hostile)]):
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "[/bold]" in out and "[red]x[/red]" in out  # shown, not parsed
        assert "\x1b" not in out  # no escape reaches the terminal


def test_markdown_outputs_escape_html(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["report", str(hostile), "-f", "md"], ["compare", "-f", "md", str(hostile)]):
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "<script>" not in out and "<img" not in out, out
        assert "&lt;script&gt;" in out
        assert "\x1b" not in out
