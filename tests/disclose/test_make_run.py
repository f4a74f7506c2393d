"""The README's audit package from a fresh run: the Makefile's ``run`` target exactly as the
README gives it (small: ``SF=0.01`` and a ``RUNDIR`` of the test's), then ``dbbench
disclose RUNDIR -o OUT`` as its own process; every file of the package is written, and
``dbbench verify`` finds each as its manifest states."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from pdf_text import page_count

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FILES = ("executive-summary.html", "executive-summary.pdf", "fdr.html", "fdr.pdf",
         "checklist.html", "checklist.json", "manifest.json")  # fmt: skip
ARCHIVE = ("run1result", "run2result", "benchmark_scripts")


def _require_tools() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        found = False
    else:
        found = os.path.exists(CHROMIUM) and shutil.which("make") is not None
    if found:
        return
    if os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no"):
        pytest.fail("make, chromium or playwright missing and DBBENCH_REQUIRE_SERVERS=1")
    pytest.skip("needs make, /usr/bin/chromium (Debian package chromium) and playwright")


def _venv(tmp_path: Path) -> Path:
    """A virtualenv for the Makefile that is this test's Python, its install stamp fresh, so
    ``make run`` installs nothing (the kit is installed already) and runs the kit here."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    script = venv / "bin" / "dbbench"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dbbench "$@"\n')
    script.chmod(0o755)
    (venv / ".dbbench-installed-run").touch()  # newer than pyproject.toml
    return venv


@pytest.mark.chromium
def test_make_run_then_disclose_writes_every_file(tmp_path: Path) -> None:
    _require_tools()
    venv = _venv(tmp_path)
    rundir = tmp_path / "runs" / "duckdb-sf0.01"
    make = ["make", "run", f"VENV={venv}", "SF=0.01", f"RUNDIR={rundir}"]
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PYTHONPATH"] = str(ROOT)
    planned = subprocess.run([*make, "-n"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=60)  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    # the run alone: nothing is installed into the test's Python
    assert planned.stdout.splitlines() == [
        f"{venv}/bin/dbbench run --engine duckdb -s 0.01 --out {rundir} --force"
    ]
    done = subprocess.run(make, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert (rundir / "result.json").is_file()

    out = tmp_path / "OUT"
    dbbench = str(venv / "bin" / "dbbench")
    done = subprocess.run([dbbench, "disclose", str(rundir), "-o", str(out)], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    for name in FILES:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    assert page_count((out / "executive-summary.pdf").read_bytes()) == 3
    archive = out / "supporting-files"
    for top in ARCHIVE:
        assert (archive / top).is_dir(), top
        with zipfile.ZipFile(archive / f"{top}.zip") as zf:
            assert zf.testzip() is None and zf.namelist(), top
    assert (archive / "run2result" / "output" / "stream0" / "q22.json").is_file()
    verified = subprocess.run([dbbench, "verify", str(out)], env=env, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
    assert verified.returncode == 0, verified.stderr
    assert "every file as its manifest states" in verified.stdout
