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
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.o2c.model import O2CProbe, O2CResult, O2CSteps
from dbbench.reports.tpch.model import BenchmarkResult

T0 = 1_790_000_000.0


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


def _o2c_result() -> O2CResult:
    probe = O2CProbe(
        users=2, think=1.0, think_dist="fixed", work_processes=2, rampup=1.0, start=T0,
        window_start=1.0, window_end=9.0, end=10.0, status="complete", logged_on=2,
        steps=O2CSteps(step=[1, 2], user=[0, 1], due=[2.0, 3.0], wait=[0.0, 0.0],
                       db=[0.1, 0.2], ok=[1, 1]),
    )  # fmt: skip
    return O2CResult(
        kind="run", engine=EngineInfo(name="duckdb", url="duckdb", version="1"),
        system=SystemInfo(hostname="h", cpu_model="c", threads=2), kit_version="0.1",
        scale_factor=0.01, seed=1, rt_limit=1.0, created=T0, probes=[probe],
    )  # fmt: skip


def _hammerdb_result() -> HammerDBResult:
    return HammerDBResult(
        benchmark="TPROC-C", jobid="J1", database="PostgreSQL",
        engine=EngineInfo(name="postgresql", url="postgresql://127.0.0.1/test", version="15"),
        system=SystemInfo(hostname="h", cpu_model="c", threads=2), kit_version="0.1",
        status="complete", nopm=1000.0, tpm=2300.0,
    )  # fmt: skip


#: Every result family is checked field by field against its types: (family, damage, the
#: field the one line must name).
FAMILY_DAMAGE = {
    "o2c-probes-text": ("o2c", _set("probes", value="x"), "probes: expected a list"),
    "o2c-users-text": ("o2c", _set("probes", 0, "users", value="a"), "probes[0].users"),
    "o2c-probe-number": ("o2c", _set("probes", 0, value=5), "probes[0]: expected an object"),
    "o2c-steps-text": ("o2c", _set("probes", 0, "steps", "db", value="z"), "steps.db"),
    "o2c-step-null": ("o2c", _set("probes", 0, "steps", "ok", 1, value=None), "steps.ok[1]"),
    "o2c-config-number": ("o2c", _set("config", value=7), "config: expected an object"),
    "o2c-kind-unknown": ("o2c", _set("kind", value="chaos"), "kind: expected one of"),
    "o2c-no-think": ("o2c", lambda d: d["probes"][0].pop("think"), "missing field(s) think"),
    "hammerdb-nopm-text": ("hammerdb", _set("nopm", value="many"), "nopm: expected a number"),
    "hammerdb-no-engine": ("hammerdb", lambda d: d.pop("engine"), "missing field(s) engine"),
    "hammerdb-timings": ("hammerdb", _set("response_times", value={}), "expected a list"),
}


@pytest.mark.parametrize("name", list(FAMILY_DAMAGE))
@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_damaged_o2c_or_hammerdb_result_is_one_line_naming_the_field(
    name: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    family, damage, words = FAMILY_DAMAGE[name]
    path = tmp_path / "result.json"
    (_o2c_result() if family == "o2c" else _hammerdb_result()).write(path)
    assert main(["report", str(path), "-o", str(tmp_path / "ok")]) == 0  # valid before
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    capsys.readouterr()
    args = [command, str(path)] + (["-o", str(tmp_path / "out")] if command == "report" else [])
    assert main(args) == ExitCode.USER_ERROR
    err = capsys.readouterr().err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    assert words in err, err
