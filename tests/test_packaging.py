"""The distribution installs one import name, ``dbbench``, and works beside folders that
share the repository's generic folder names (``reports/``, ``queries/``...)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHADOWS = ("dbgen", "queries", "drivers", "reports")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy of the tracked files: setuptools writes build/ beside the sources.
    source = tmp_path_factory.mktemp("source") / "dbbench"
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (REPO / name).is_symlink():
            target.symlink_to((REPO / name).readlink())
        elif (REPO / name).is_file():
            shutil.copy2(REPO / name, target)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("dbbench-*.whl")
    return built


def _shadowing_folders(where: Path) -> None:
    """Folders named like the repository's, each of which fails loudly when imported."""
    for name in SHADOWS:
        (where / name).mkdir()
        (where / name / "__init__.py").write_text(f"raise ImportError('the user\\'s own {name}')\n")


@pytest.mark.slow
def test_wheel_has_one_top_level_import_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert top == {"dbbench"}, f"top-level names in {wheel.name}: {sorted(top)}"
    # The pipeline packages and their data travel inside it.
    for member in (
        "dbbench/dbgen/api.py",
        "dbbench/queries/templates/1.sql",
        "dbbench/queries/answers/sf1/q1.out",
        "dbbench/queries/answers/sf10/q16.out",
        "dbbench/queries/answers/sf10/manifest.json",
        "dbbench/drivers/engines/duckdb.py",
        "dbbench/reports/templates/report.html.j2",
        "dbbench/reports/py.typed",
    ):
        assert member in names, f"{member} missing from {wheel.name}"


@pytest.mark.slow
def test_installed_wheel_works_beside_user_folders(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "work"
    work.mkdir()
    _shadowing_folders(work)
    # PYTHONPATH puts the unpacked wheel ahead of the editable install; the current directory
    # (first on sys.path with -c) holds the user's own reports/ and queries/ folders.
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dbbench, dbbench.reports.model, dbbench.queries.render, sys;"
            "print(dbbench.__file__);"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in"
            f" {SHADOWS!r}))",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    where, bare = probe.stdout.splitlines()
    assert Path(where).is_relative_to(site), where
    assert bare == "[]", f"bare top-level modules imported: {bare}"
    qgen = subprocess.run(
        [sys.executable, "-m", "dbbench", "qgen", "6", "-s", "1", "--defaults"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert qgen.returncode == 0, qgen.stderr
    assert "lineitem" in qgen.stdout.lower()


def test_editable_install_exposes_only_dbbench(tmp_path: Path) -> None:
    """Outside the repository, the generic folder names are not importable from dbbench."""
    _shadowing_folders(tmp_path)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import importlib.util as u, dbbench.cli;"
            f"print([n for n in {SHADOWS!r} if u.find_spec(n) and"
            " 'the user' not in open(u.find_spec(n).origin).read()])",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "[]", probe.stdout
