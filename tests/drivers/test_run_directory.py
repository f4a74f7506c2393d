"""``--force`` replaces only what dbbench itself wrote (issue: reliability, item 1).

A user's folder that happens to hold a ``result.json`` or a ``journal.jsonl`` is never
emptied; neither is the current directory, a directory above it, or a symbolic link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.errors import DriversError
from dbbench.drivers.rundir import MARKER_FILE, prepare_run_dir
from dbbench.errors import ExitCode

SF = "0.01"


def _project(folder: Path) -> dict[str, str]:
    """A user's project folder with files named like dbbench's own."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "result.json": '{"mine": true}',
        "journal.jsonl": '{"event": "my diary"}\n',
        "notes.txt": "precious",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return files


def _unchanged(folder: Path, files: dict[str, str]) -> None:
    assert {p.name for p in folder.iterdir()} == set(files)
    for name, text in files.items():
        assert (folder / name).read_text() == text


def _one_line(err: str) -> str:
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    return err


def test_force_on_a_folder_dbbench_did_not_make_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "project"
    files = _project(folder)
    assert main(["load", "-s", SF, "-o", str(folder), "--force"]) == ExitCode.USER_ERROR
    assert "was not made by dbbench" in _one_line(capsys.readouterr().err)
    _unchanged(folder, files)


def test_force_on_the_current_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o . --force`` in a project folder: refused, even with a marker in it."""
    folder = tmp_path / "project"
    files = _project(folder)
    (folder / MARKER_FILE).write_text("a marker does not make the cwd replaceable")
    files[MARKER_FILE] = (folder / MARKER_FILE).read_text()
    monkeypatch.chdir(folder)
    for out in (".", str(folder)):
        assert main(["load", "-s", SF, "-o", out, "--force"]) == ExitCode.USER_ERROR
        assert "current directory or one above it" in _one_line(capsys.readouterr().err)
        _unchanged(folder, files)


def test_force_on_a_parent_of_the_cwd_with_a_marker_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    assert main(["load", "-s", SF, "-o", str(run)]) == 0
    capsys.readouterr()
    (run / "inside").mkdir()
    monkeypatch.chdir(run / "inside")
    before = sorted(p.name for p in run.iterdir())
    assert main(["load", "-s", SF, "-o", "..", "--force"]) == ExitCode.USER_ERROR
    assert "current directory or one above it" in _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in run.iterdir()) == before


def test_a_symlinked_out_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    files = _project(real)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    for force in ([], ["--force"]):
        assert main(["load", "-s", SF, "-o", str(link), *force]) == ExitCode.USER_ERROR
        assert "is a symbolic link" in _one_line(capsys.readouterr().err)
        _unchanged(real, files)
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "link2").symlink_to(empty, target_is_directory=True)
    assert main(["load", "-s", SF, "-o", str(tmp_path / "link2")]) == ExitCode.USER_ERROR
    assert "is a symbolic link" in _one_line(capsys.readouterr().err)
    assert list(empty.iterdir()) == []


def test_force_replaces_only_the_files_dbbench_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["load", "-s", SF, "-o", str(run)]) == 0
    assert (run / MARKER_FILE).is_file()
    first = (run / "result.json").read_text()
    (run / "my-notes.txt").write_text("keep me")
    (run / "data").mkdir()
    (run / "data" / "x.csv").write_text("1,2")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    (run / "summary-link.txt").symlink_to(outside)
    capsys.readouterr()
    assert main(["load", "-s", SF, "-o", str(run), "--force"]) == 0
    assert (run / "result.json").read_text() != first  # a new run's result
    assert (run / "my-notes.txt").read_text() == "keep me"
    assert (run / "data" / "x.csv").read_text() == "1,2"
    assert outside.read_text() == "outside" and (run / "summary-link.txt").is_symlink()
    assert (run / MARKER_FILE).is_file()


def test_force_says_when_it_drops_the_journal_of_an_unfinished_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert main(["load", "-s", SF, "-o", str(run)]) == 0
    # a run killed with SIGKILL: its journal has no benchmark_end
    lines = (run / "journal.jsonl").read_text().splitlines(keepends=True)
    (run / "journal.jsonl").write_text("".join(ln for ln in lines if "benchmark_end" not in ln))
    capsys.readouterr()
    assert main(["load", "-s", SF, "-o", str(run), "--force"]) == 0
    err = capsys.readouterr().err
    assert "--force replaced the journal of an unfinished run (1 measured interval(s))" in err


def test_prepare_run_dir_units(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert prepare_run_dir(run, force=False) is True
    assert [p.name for p in run.iterdir()] == [MARKER_FILE]
    (run / "result.json").write_text("{}")
    with pytest.raises(DriversError, match="already exists; use --force"):
        prepare_run_dir(run, force=False)
    prepare_run_dir(run, force=True)
    assert [p.name for p in run.iterdir()] == [MARKER_FILE]
    (run / "tpch.duckdb").write_text("db")
    prepare_run_dir(run, force=True, keep=("tpch.duckdb",))
    assert (run / "tpch.duckdb").read_text() == "db"
    os.remove(run / "tpch.duckdb")
