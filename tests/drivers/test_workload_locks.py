"""Every workload that touches a database takes its benchmark lock through the one run
lifecycle (``drivers.lifecycle.open_run``): a suite, a scaling study and each o2c command
refuse, in one line, a database another workload holds, and leave nothing behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers import rundir
from dbbench.drivers.registry import open_engine
from dbbench.errors import ExitCode

BUSY = "dbbench: error: another dbbench run is using database "


@pytest.fixture()
def held_postgres(pg_base_url: str) -> Iterator[str]:
    """A private PostgreSQL database whose benchmark lock another workload holds."""
    with fresh_postgres(pg_base_url, "dbbench_held") as url:
        holder = open_engine(url)
        try:
            holder.lock_benchmark()
            yield url
        finally:
            holder.close()


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    problems = [line for line in err.splitlines() if line.startswith("dbbench:")]
    assert len(problems) == 1 and problems[0].startswith(BUSY), err  # one line says it
    return err


@pytest.mark.postgresql
def test_a_suite_refuses_a_held_database(
    held_postgres: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_text(
        f'scale_factor = 0.01\nstreams = 1\nruns = 1\n\n[[engine]]\nname = "pg"\n'
        f'url = "{held_postgres}"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    _refused(["suite", str(suite), "-o", str(out)], capsys)
    assert not (out / "pg-sf0.01" / "result.json").exists()  # nothing ran


@pytest.mark.postgresql
def test_a_scaling_study_refuses_a_held_database(
    held_postgres: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scaling"
    _refused(["scale", "-e", held_postgres, "-s", "0.01", "-S", "1", "-o", str(out)], capsys)
    assert not out.exists()  # no empty study folder stays (issue 20 item 13)


@pytest.mark.postgresql
@pytest.mark.parametrize("command", ["run", "prepare", "check", "cleanup", "search", "scale"])
def test_o2c_refuses_a_held_database(
    command: str, held_postgres: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = {"run": ["-u", "1"], "prepare": [], "check": [], "cleanup": []}.get(command, [])
    out = tmp_path / "o2c.json"
    outs = ["-o", str(out)] if command in ("run", "search", "scale") else []
    _refused(["o2c", command, "-e", held_postgres, *args, *outs], capsys)
    assert not out.exists()


def test_a_study_releases_its_run_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scaling study that ended holds no run directory of its own (it used to keep the
    lock of each step's directory until the process ended)."""
    out = tmp_path / "scaling"
    argv = ["scale", "-e", "duckdb", "-s", "0.01", "-S", "1", "-o", str(out)]
    assert main([*argv, "--telemetry-interval", "0"]) == 0, capsys.readouterr().err
    assert not [held for held in rundir._HELD if held.is_relative_to(out.resolve())]
