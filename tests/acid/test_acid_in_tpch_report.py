"""An ACID result attached to a TPC-H result (``dbbench report RUN --acid FILE``; ``dbbench
run --acid`` attaches it the same way): its verdict in text, Markdown, HTML and JSON, the
compliance section not compliant when it did not pass, and one of another engine or
configuration refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reports_fixtures import make_result

from dbbench.cli import main
from dbbench.reports.acid.model import ALL_TESTS, AcidCheck, AcidResult
from dbbench.reports.model import EngineInfo
from dbbench.reports.tpch.acid import attach
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.model import BenchmarkResult


def _acid(verdicts: dict[str, str], version: str = "1.4.1") -> AcidResult:
    tpch = make_result()
    return AcidResult(
        engine=EngineInfo(name="duckdb", url="duckdb:///q.duckdb", version=version),
        system=tpch.system,
        kit_version="0.1.0",
        scale_factor=1.0,
        qualification=True,
        checks=[
            AcidCheck(name=n, verdict=verdicts.get(n, "passed"), message="broken at txn2")  # type: ignore[arg-type]
            for n in ALL_TESTS
            if verdicts.get(n) != "absent"
        ],
        failures_exercised={"system crash (process or server killed)": "SIGKILL"},
        status="complete",
    )


def _written(tmp_path: Path, result: BenchmarkResult | AcidResult, name: str) -> Path:
    path = tmp_path / name / "result.json"
    path.parent.mkdir()
    result.write(path)
    return path


def test_a_passed_acid_result_shows_in_every_format(tmp_path: Path) -> None:
    result = make_result(acid=None)
    attach(result, _acid({}), "acid/result.json")
    for fmt in ("text", "md", "html"):
        assert "ACID: passed (tests atomicity-commit" in render(result, fmt), fmt
    data = json.loads(render(result, "json"))
    assert data["result"]["acid"]["verdict"] == "passed"
    assert any(n.startswith("ACID: passed") for n in data["notes"])
    assert data["compliance"]["compliant"] is True


def test_a_failed_or_incomplete_one_makes_the_run_not_compliant(tmp_path: Path) -> None:
    failed = make_result(acid=None)
    attach(failed, _acid({"isolation-3": "failed"}))
    text = render(failed, "text")
    assert "ACID: failed: isolation-3: broken at txn2" in text
    assert "non-compliant: the ACID tests did not pass: ACID: failed" in text
    incomplete = make_result(acid=None)
    attach(incomplete, _acid({"durability": "absent"}))
    md = render(incomplete, "md")
    assert "ACID: incomplete (passed atomicity-commit" in md and "not run: durability" in md
    assert json.loads(render(incomplete, "json"))["compliance"]["compliant"] is False


def test_report_acid_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _written(tmp_path, make_result(acid=None), "run")
    acid = _written(tmp_path, _acid({}), "acid")
    assert main(["report", str(run.parent), "--acid", str(acid), "-f", "md"]) == 0
    assert "ACID: passed" in capsys.readouterr().out
    other = _written(tmp_path, _acid({}, version="0.9.0"), "old")
    assert main(["report", str(run), "--acid", str(other)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the same configuration" in err
    assert main(["report", str(run), "--acid", str(run)]) == 1
    assert "is not an ACID result" in capsys.readouterr().err
