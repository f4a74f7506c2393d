"""One real TPC-H run (DuckDB, SF 0.01) for every disclosure test, and its package."""

from __future__ import annotations

from pathlib import Path

import pytest

#: the example sheet prices an 8-vCPU machine
SHEET = Path(__file__).resolve().parents[2] / "examples" / "cost-sheets" / "cloud-vm-3y.toml"
#: the benchmark sponsor the package names (``--sponsor``)
SPONSOR = "Example Sponsor & Co <Benchmarks>"


@pytest.fixture(scope="session")
def disclose_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory made by ``dbbench run -s 0.01`` on DuckDB (its database removed)."""
    from dbbench.cli import main

    out = tmp_path_factory.mktemp("disclose") / "run"
    args = ["run", "-s", "0.01", "-o", str(out), "--telemetry-interval", "0", "--plans", "off"]
    assert main(args) == 0
    (out / "tpch.duckdb").unlink(missing_ok=True)
    return out


@pytest.fixture(scope="session")
def package(disclose_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``dbbench disclose`` of that run with the example cost sheet and a sponsor, PDFs
    included."""
    from dbbench.cli import main

    out = tmp_path_factory.mktemp("package") / "out"
    args = ["disclose", str(disclose_run), "-o", str(out), "--cost-sheet", str(SHEET),
            "--sponsor", SPONSOR]  # fmt: skip
    assert main(args) == 0
    return out
