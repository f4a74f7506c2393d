"""Results for the site tests: one real ``dbbench run`` (DuckDB, SF 0.01), the kit's golden
files of every family and the hand-built fixtures of the reports tests (both from
``tests/reports_fixtures.py``: test modules import nothing from a ``conftest``, a name every
test folder's conftest.py has, so which one ``import conftest`` finds depends on the folders
given to pytest and their order)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, TESTS / "reports"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


@pytest.fixture(scope="session")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory made by ``dbbench run -s 0.01`` on DuckDB (its database removed)."""
    from dbbench.cli import main

    out = tmp_path_factory.mktemp("real") / "run"
    code = main(["run", "-s", "0.01", "-o", str(out)])
    assert code == 0
    (out / "tpch.duckdb").unlink(missing_ok=True)
    return out


@pytest.fixture
def run_copy(real_run: Path, tmp_path: Path) -> Path:
    """A private copy of the real run directory, to tamper with."""
    return Path(shutil.copytree(real_run, tmp_path / "run"))
