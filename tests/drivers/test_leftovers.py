"""Bad input and failed starts leave nothing behind and print one line (issue 20, items 4,
12, 13 and 15): every workload's start goes through the one run lifecycle."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.journal import Journal
from dbbench.drivers.rundir import MARKER_FILE
from dbbench.drivers.signals import EXIT_INTERRUPTED
from dbbench.drivers.space import _gb
from dbbench.errors import ExitCode
from dbbench.reports.model import JOURNAL_FILE, REPORT_HTML_FILE


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _down() -> str:
    return f"postgresql://postgres@127.0.0.1:{_closed_port()}/nothing"


def _one_line(capsys: pytest.CaptureFixture[str], code: int, needle: str = "") -> str:
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    assert needle in err, err
    return err


def test_validate_refuses_a_bad_reference_before_loading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "v.duckdb"
    code = main(["validate", "-e", f"duckdb:///{db}", "--against", "nope://x:y@/"])
    _one_line(capsys, code)
    assert not db.exists()  # not created, not loaded


def test_scale_with_an_unreachable_engine(
    tmp_cwd: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["scale", "-e", _down(), "-s", "0.01", "-S", "1"])
    _one_line(capsys, code)  # once, not twice
    assert not Path("scaling").exists()


def test_node_study_with_an_unreachable_node(
    tmp_path: Path, tmp_cwd: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["o2c", "scale-nodes", "-e", _down(), "-e", _down()])
    _one_line(capsys, code)
    assert list(Path(".").iterdir()) == []  # no study folder, no runs/


@pytest.mark.parametrize("command", ["prepare", "check", "cleanup", "run", "search", "scale"])
def test_o2c_on_a_missing_duckdb_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "missing.duckdb"
    users = ["-u", "1"] if command == "run" else []
    code = main(["o2c", command, "-e", f"duckdb:///{db}", *users])
    _one_line(capsys, code, "no database file")
    assert list(tmp_path.iterdir()) == []  # no database file, no result file


def test_run_into_the_current_directory_with_an_unreachable_engine(
    tmp_cwd: object, capsys: pytest.CaptureFixture[str]
) -> None:
    _one_line(capsys, main(["run", "-e", _down(), "-s", "0.01", "-o", "."]))
    assert not Path(MARKER_FILE).exists()
    assert list(Path(".").iterdir()) == []


def test_space_figures_never_read_zero() -> None:
    assert _gb(4.2e7) == "42.0 MB"  # was "0.0 GB"
    assert _gb(2.5e9) == "2.5 GB"
    assert _gb(0) == "0.0 GB"


def test_gen_refuses_a_scale_factor_that_cannot_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "data"
    _one_line(capsys, main(["gen", "-s", "1e9", "-o", str(out)]), "SF 1e+09 writes about")
    assert not out.exists()


def test_scale_refuses_a_scale_factor_that_cannot_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scaling"
    code = main(["scale", "-s", "1e9", "-S", "1", "-o", str(out)])
    _one_line(capsys, code, "SF 1e+09 needs about")
    assert not out.exists()


def test_a_suite_refuses_a_scale_factor_that_cannot_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text('scale_factor = 1e9\n[[engine]]\nname = "d"\nurl = "duckdb"\n', "utf-8")
    code = main(["suite", str(suite), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    problems = [line for line in err.splitlines() if line.startswith("dbbench:")]
    assert len(problems) == 1 and "SF 1e+09 needs about" in problems[0], err
    assert not (tmp_path / "out" / "d-sf1e+09" / "tpch.duckdb").exists()


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("scale_factor = inf", "'scale_factor' must be a finite number, got inf"),
        ("scale_factor = nan", "'scale_factor' must be a finite number, got nan"),
        ("scale_factor = 0.01\ntelemetry_interval = nan", "'telemetry_interval' must be a finite"),
    ],
)
def test_a_suite_file_with_non_finite_numbers(
    text: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text(f'{text}\n[[engine]]\nname = "d"\nurl = "duckdb"\n', "utf-8")
    _one_line(capsys, main(["suite", str(suite), "-o", str(tmp_path / "out")]), needle)
    assert not (tmp_path / "out").exists()


def test_a_suite_cost_sheet_stays_in_the_suite_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (tmp_path / "secret.toml").write_text("x = 1\n", encoding="utf-8")
    suite = folder / "suite.toml"
    suite.write_text(
        '[[engine]]\nname = "d"\nurl = "duckdb"\ncost_sheet = "../secret.toml"\n', "utf-8"
    )
    code = main(["suite", str(suite), "-o", str(tmp_path / "out")])
    _one_line(capsys, code, "outside the suite file's folder")
    (folder / "link.toml").symlink_to(tmp_path / "secret.toml")
    suite.write_text('[[engine]]\nname = "d"\nurl = "duckdb"\ncost_sheet = "link.toml"\n', "utf-8")
    code = main(["suite", str(suite), "-o", str(tmp_path / "out")])
    _one_line(capsys, code, "outside the suite file's folder")


@pytest.mark.parametrize("name", [JOURNAL_FILE, REPORT_HTML_FILE])
def test_force_never_writes_through_a_planted_link(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["load", "-s", "0.01", "-o", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n", encoding="utf-8")
    (out / name).unlink()
    (out / name).symlink_to(outside)
    assert main([*argv, "--force"]) == 0, capsys.readouterr().err
    assert outside.read_text(encoding="utf-8") == "mine\n"
    assert not (out / name).is_symlink()


def test_a_journal_is_never_written_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n", encoding="utf-8")
    link = tmp_path / JOURNAL_FILE
    link.symlink_to(outside)
    with pytest.raises(OSError, match="symbolic link"):
        Journal(link)
    assert outside.read_text(encoding="utf-8") == "mine\n"


def test_one_interrupted_exit_code() -> None:
    """``dbbench.errors`` (imported by ``gen``, which loads no driver) repeats the code."""
    assert ExitCode.INTERRUPTED == EXIT_INTERRUPTED
