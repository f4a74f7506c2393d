"""``o2c search`` end to end on a server engine (PostgreSQL): probes, the confirmation run,
the result and its report, then check and cleanup restore the database exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
from o2c_helpers import table_digest

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports.o2c.metrics import summarize, summarize_result
from dbbench.reports.o2c.model import O2CResult


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_search_on_postgresql(
    tpch_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = table_digest(tpch_url)
    assert main(["o2c", "prepare", "-e", tpch_url, "--users", "40"]) == 0
    out = tmp_path / "search.json"
    args = [
        "o2c", "search", "-e", tpch_url, "-u", "5", "--max-users", "20", "--max-probes", "3",
        "--think", "0.05", "--rampup", "0.3", "--steady", "1.5", "--confirm-steady", "2",
        "--rt-limit", "2", "--progress", "60", "-o", str(out),
    ]  # fmt: skip
    code = main(args)
    captured = capsys.readouterr()
    result = O2CResult.read(out)
    probes = [p for p in result.probes if p.role == "probe"]
    assert [p.users for p in probes][:1] == [5] and 1 <= len(probes) <= 3
    assert all(p.status == "complete" and sum(p.steps.ok) > 0 for p in probes)
    best = summarize_result(result).best
    assert code == (0 if best is not None else ExitCode.INVALID_RUN)
    confirmations = [p for p in result.probes if p.role == "confirmation"]
    assert (best is None) == (confirmations == [])  # a count found is confirmed
    if any(summarize(p, result.rt_limit).passed for p in confirmations):
        assert best is not None and best.role == "confirmation"  # its figures are used
    assert "O2C-SAPS (unofficial)" in captured.out
    assert result.engine.name == "postgresql"
    assert main(["o2c", "check", "-e", tpch_url]) == 0
    assert main(["o2c", "cleanup", "-e", tpch_url]) == 0
    assert table_digest(tpch_url) == before
