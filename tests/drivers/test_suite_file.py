"""The suite file of ``dbbench suite`` (:mod:`dbbench.drivers.suite_file`): every mistake is
one line naming the file, the line and the field; the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.suite_file import SuiteFileError, load_suite


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_suite_file_mistakes_name_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = '[[engine]]\nname = "a"\nurl = "duckdb"\n'
    cases = {
        "scale_factor = 0.01\nstreems = 2\n" + base: "line 2: unknown field 'streems' at the top",
        base + 'cost = "x.toml"\n': "line 4: unknown field 'cost' in [[engine]] number 1",
        base + '[[engine]]\nname = "b"\nurl = "nosuchdb://h/x"\n': (
            "line 6: in [[engine]] number 2: url: unknown engine 'nosuchdb'"
        ),
        base + '[[engine]]\nname = "a"\nurl = "duckdb"\n': "two engines are named 'a'",
        'baseline = "zz"\n' + base: "line 1: baseline 'zz' is not an engine of this suite",
        "streams = 0\n" + base: "line 1: streams must be an integer >= 1, not 0",
        "runs = 1\n": "the suite names no engine",
        base.replace('"a"', '"a/b"'): "line 2: in [[engine]] number 1: name 'a/b' must be",
    }
    for i, (text, expected) in enumerate(cases.items()):
        path = _write(tmp_path / f"s{i}.toml", text)
        with pytest.raises(SuiteFileError) as info:
            load_suite(path)
        assert expected in str(info.value), (text, str(info.value))
        assert str(path) in str(info.value)
    # the CLI: one line, exit 1, nothing run
    path = _write(tmp_path / "bad.toml", "scale_factor = 0.01\nstreems = 2\n" + base)
    assert main(["suite", str(path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown field 'streems'" in err
    assert not (tmp_path / "out").exists()


def test_suite_file_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.toml", '[[engine]]\nname = "a"\nurl = "duckdb"\n')
    suite = load_suite(path)
    assert suite.scale_factors == [1.0] and suite.runs == 1 and suite.seed == 1
    assert suite.streams is None and suite.baseline == "a" and suite.telemetry_interval == 1.0
