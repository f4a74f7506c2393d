"""Issue 20: outputs never replace devices or symlinks, Markdown lets no raw HTML pass, text
lets no control character pass, and implausible results of every family are one line."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from test_crafted_results import _hammerdb_result, _o2c_result

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.o2c.series import MAX_BUCKETS, throughput_series
from dbbench.reports.tpch.model import BenchmarkResult

HOSTILE = "<script>alert(1)</script> | `x` \x07\x1b[2J\r\x00 \u202egnp.exe"


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    return err


def test_report_to_a_device_streams_and_keeps_the_device(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    before = os.stat("/dev/null").st_ino
    assert main(["report", str(path), "-o", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.stat("/dev/null").st_ino == before


@pytest.mark.parametrize("command", ["report", "compare", "gate"])
def test_an_output_that_is_a_symlink_is_refused_in_one_line(
    command: str, result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result.write(path)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    link = tmp_path / "out.md"
    link.symlink_to(outside)
    args = {"report": [str(path)], "compare": [str(path)], "gate": [str(path), str(path)]}
    code = main([command, *args[command], "-f", "md", "-o", str(link)])
    assert code == ExitCode.USER_ERROR
    assert "symbolic link" in _one_line_error(capsys)
    assert outside.read_text() == "keep" and link.is_symlink()


def test_report_refuses_to_overwrite_its_own_input(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.json"
    result.write(path)
    before = path.read_bytes()
    assert main(["report", str(path), "-f", "json", "-o", str(path)]) == ExitCode.USER_ERROR
    assert "it is an input of this command" in _one_line_error(capsys)
    assert path.read_bytes() == before


def _hostile_o2c(tmp_path: Path) -> Path:
    r = _o2c_result()
    r.errors = [HOSTILE]
    r.engine.version = HOSTILE
    r.system.cpu_model = HOSTILE
    r.probes[0].think_dist = HOSTILE
    path = tmp_path / "o2c.json"
    r.write(path)
    return path


def _assert_safe(out: str, fmt: str) -> None:
    """No control or bidi character in any format; in Markdown, no raw HTML either."""
    assert "\x1b" not in out and "\x07" not in out
    assert "\u202e" not in out and "\x00" not in out and "\r" not in out
    if fmt == "md":
        assert "<script" not in out and "<img" not in out


@pytest.mark.parametrize("fmt", ["md", "text"])
def test_o2c_report_and_compare_escape_every_string(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _hostile_o2c(tmp_path)
    for args in (["report", str(path), "-f", fmt], ["compare", str(path), "-f", fmt]):
        assert main(args) == 0
        out = capsys.readouterr().out
        _assert_safe(out, fmt)
        if fmt == "md":
            assert "&lt;script&gt;" in out


def test_compare_with_an_o2c_section_escapes_it(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tpch = tmp_path / "result.json"
    result.write(tpch)
    o2c = _hostile_o2c(tmp_path)
    assert main(["compare", str(tpch), str(o2c), "-f", "md"]) == 0
    _assert_safe(capsys.readouterr().out, "md")


@pytest.mark.parametrize("fmt", ["md", "text"])
def test_gate_output_escapes_labels_and_warnings(
    fmt: str, result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "<img src=x onerror=alert(1)>\x1b[2J\u202e"
    folder.mkdir()
    path = folder / "result.json"
    result.write(path)
    main(["gate", str(path), str(path), "-f", fmt])
    _assert_safe(capsys.readouterr().out, fmt)


def test_hammerdb_text_has_no_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _hammerdb_result()
    r.errors = [HOSTILE]
    path = tmp_path / "hdb.json"
    r.write(path)
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out


def _o2c_data() -> dict[str, Any]:
    return json.loads(_o2c_result().to_json())


def _tpch_data(result: BenchmarkResult) -> dict[str, Any]:
    return json.loads(result.to_json())


IMPLAUSIBLE_O2C: dict[str, Any] = {
    "zero-work-processes": lambda d: d["probes"][0].update(work_processes=0),
    "negative-step-time": lambda d: d["probes"][0]["steps"].update(db=[-5.0, 0.1]),
    "uneven-columns": lambda d: d["probes"][0]["steps"].update(due=[1.0]),
    "nan-limit": "NaN",
    "inf-limit": "Infinity",
    "huge-exponent": "1e400",
    "huge-integer": "1" + "0" * 400,
}


@pytest.mark.parametrize("name", list(IMPLAUSIBLE_O2C))
@pytest.mark.parametrize("command", ["report", "compare"])
def test_an_implausible_o2c_result_is_one_line(
    name: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage = IMPLAUSIBLE_O2C[name]
    data = _o2c_data()
    path = tmp_path / "o2c.json"
    if isinstance(damage, str):
        text = json.dumps(data).replace('"rt_limit": 1.0', f'"rt_limit": {damage}')
        assert damage in text
        path.write_text(text)
    else:
        damage(data)
        path.write_text(json.dumps(data))
    assert main([command, str(path)]) == ExitCode.USER_ERROR
    _one_line_error(capsys)


IMPLAUSIBLE_TPCH: dict[str, str] = {
    "huge-integer": '"streams": 1' + "0" * 400,
    "huge-exponent": '"scale_factor": 1e400',
    "nan": '"scale_factor": NaN',
    "deep-config": '"config": ' + "[" * 500 + "]" * 500,
}


@pytest.mark.parametrize("name", list(IMPLAUSIBLE_TPCH))
@pytest.mark.parametrize("version", [1, 2])
def test_an_implausible_tpch_result_of_any_version_is_one_line(
    name: str,
    version: int,
    result: BenchmarkResult,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``schema_version: 1`` skipped the schema check entirely."""
    data = _tpch_data(result)
    data["schema_version"] = version
    if version == 1:
        data["compliance"]["reasons"] = ["not evaluated"]
    key = IMPLAUSIBLE_TPCH[name].split(":")[0].strip('"')
    data.pop(key)
    text = json.dumps(data)[:-1] + ", " + IMPLAUSIBLE_TPCH[name] + "}"
    path = tmp_path / "result.json"
    path.write_text(text)
    assert main(["report", str(path)]) == ExitCode.USER_ERROR
    _one_line_error(capsys)


def test_a_version_1_result_is_checked_against_the_schema(
    result: BenchmarkResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _tpch_data(result)
    data["schema_version"] = 1
    data["compliance"]["reasons"] = ["not evaluated"]
    data["runs"][0]["intervals"][0]["seconds"] = "fast"
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == ExitCode.USER_ERROR
    assert "seconds" in _one_line_error(capsys)


def test_throughput_buckets_are_bounded_whatever_the_step_times_say() -> None:
    """A huge step time made one bucket per second up to it (15.6 GB in 26 s)."""
    r: O2CResult = _o2c_result()
    r.probes[0].steps.db = [0.1, 1e15]
    started = time.process_time()  # CPU seconds: other processes on a busy machine add none
    series = throughput_series(r.probes[0], 1.0)
    assert time.process_time() - started < 1.0
    assert 0 < len(series) <= MAX_BUCKETS
    assert sum(v for _, v in series) * (series[1][0] - series[0][0]) == pytest.approx(2.0)
