"""Finding HammerDB: the flag, the environment variable, PATH; one line when it is unusable."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers.hammerdb.install import ENV_VAR, find_hammerdb, locate


def test_nothing_found_names_every_way_and_the_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    install = locate(None, {"PATH": ""})
    assert not install.usable and install.root is None
    assert "--hammerdb" in install.problem and ENV_VAR in install.problem
    assert "tcl8.6" in install.describe() and "hammerdb.com" in install.describe()


def test_directory_without_hammerdbcli(tmp_path: Path) -> None:
    install = find_hammerdb(tmp_path)
    assert not install.usable and "has no hammerdbcli" in install.problem


def test_broken_hammerdb_says_why(tmp_path: Path) -> None:
    """A hammerdbcli that dies at start-up (here: a missing Tcl package) is reported, not run."""
    (tmp_path / "bin").mkdir()
    cli = tmp_path / "hammerdbcli"
    cli.write_text('#!/bin/sh\necho "can\'t find package ticklecharts" >&2\nexit 1\n')
    cli.chmod(cli.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "bin" / "tclsh8.6").write_text("")  # a release bundle's layout
    install = find_hammerdb(tmp_path)
    assert not install.usable
    assert "failed to start: can't find package ticklecharts" in install.problem


def test_check_command_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["hammerdb", "check", "--hammerdb", str(tmp_path / "nope")]) == 1
    captured = capsys.readouterr()
    err = captured.err
    assert captured.out == "" and err.count("\n") == 1  # an error goes to stderr
    assert "not a directory" in err and "install HammerDB" in err
    assert "Tcl adapters on TCLLIBPATH" in err
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    code = main(["hammerdb", "run", "tprocc", "-e", "postgresql://postgres@127.0.0.1/x"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "HammerDB not usable" in err


@pytest.mark.hammerdb
def test_real_hammerdb_is_found_three_ways(
    hammerdb_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    by_flag = find_hammerdb(hammerdb_dir)
    assert by_flag.usable, by_flag.problem
    assert by_flag.version.startswith("v") and by_flag.found_by == "--hammerdb"
    assert {"postgresql", "mariadb"} <= set(by_flag.drivers)
    assert find_hammerdb().found_by == f"${ENV_VAR}"  # the fixture set it
    monkeypatch.delenv(ENV_VAR)
    link_dir = tmp_path / "bin"
    link_dir.mkdir()
    (link_dir / "hammerdbcli").symlink_to(hammerdb_dir / "hammerdbcli")
    monkeypatch.setenv("PATH", f"{link_dir}{os.pathsep}{os.environ['PATH']}")
    on_path = find_hammerdb()
    assert on_path.usable and on_path.found_by == "PATH" and on_path.root == hammerdb_dir.resolve()
    assert main(["hammerdb", "check", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["usable"] and doc["version"] == by_flag.version
    assert main(["engines"]) == 0
    assert "HammerDB" in capsys.readouterr().out
