"""A 2x2 frontier on MariaDB (every point a short mixed run or a baseline), then the
invariants: both sides measured in every window, freshness recorded, the report formats,
``o2c check`` passes and ``o2c cleanup`` restores the TPC-H tables exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from mixed_helpers import FAST, GRID, check_and_cleanup, check_frontier, load_and_prepare
from private_databases import fresh_mariadb

from dbbench.cli import main

pytestmark = pytest.mark.mariadb


def test_frontier_then_check_and_cleanup(
    mariadb_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_mariadb(mariadb_base_url, "dbbench_mixed") as url:
        before = load_and_prepare(url, 4)
        out = tmp_path / "frontier"
        code = main(["mixed", "frontier", "-e", url, *GRID, *FAST, "-o", str(out)])
        check_frontier(out, code, capsys.readouterr().out, tmp_path)
        check_and_cleanup(url, before)
