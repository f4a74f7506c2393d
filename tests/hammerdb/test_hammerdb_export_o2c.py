"""Exporting a dbbench o2c result as a ``hammerdb-job-report-v1`` (TPROC-C layout, labelled
dbbench o2c, unofficial) and reading it back through ``dbbench hammerdb import``. The o2c
result is built from raw step measurements of a known closed loop, so the expected orders
and dialog steps per minute are counted here, independently of the kit's summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.reports.hammerdb.export import to_job_report, validate_job_report
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.o2c.model import O2CProbe, O2CResult, O2CSteps

START = 1_790_000_000.0  # a fixed Unix epoch, so that timestamps are real dates


def _probe(users: int, rt: float, think: float = 1.0) -> O2CProbe:
    """``users`` users in a closed loop: log-on, then steps 1..15 over and over, each step
    taking ``rt`` s after ``think`` s; 120 s in all, the window is 10..110 s."""
    steps = O2CSteps()
    for user in range(users):
        t, k = 0.1 * user, 0
        while t < 120:
            steps.step.append(0 if k == 0 else (k - 1) % 15 + 1)
            steps.user.append(user)
            steps.due.append(t)
            steps.wait.append(rt / 4)
            steps.db.append(rt * 3 / 4)
            steps.ok.append(1)
            t += rt + think
            k += 1
    return O2CProbe(
        users=users, think=think, think_dist="fixed", work_processes=2, rampup=6.0,
        start=START, window_start=10.0, window_end=110.0, end=120.0, status="complete",
        logged_on=users, steps=steps,
    )  # fmt: skip


def _result(kind: str, probes: list[O2CProbe]) -> O2CResult:
    return O2CResult(
        kind=kind,  # type: ignore[arg-type]
        engine=EngineInfo(name="duckdb", url="duckdb:///o2c.duckdb", version="DuckDB 1.1.3"),
        system=SystemInfo(hostname="bench-host", cpu_model="Test CPU", threads=2),
        kit_version="0.1",
        scale_factor=0.01,
        seed=1,
        rt_limit=1.0,
        created=START,
        probes=probes,
    )


def _expected_per_minute(probe: O2CProbe) -> tuple[float, float]:
    """(orders invoiced, dialog steps) per minute in the window, counted from the raw steps."""
    s, orders, dialog = probe.steps, 0, 0
    for i in range(len(s.step)):
        end = s.due[i] + s.wait[i] + s.db[i]
        if s.step[i] and s.ok[i] and probe.window_start <= end <= probe.window_end:
            dialog += 1
            orders += s.step[i] == 15
    minutes = (probe.window_end - probe.window_start) / 60.0
    return orders / minutes, dialog / minutes


def test_o2c_run_exports_as_tprocc_and_imports_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    probe = _probe(10, 0.25)
    source = tmp_path / "o2c-run.json"
    _result("run", [probe]).write(source)
    exported = tmp_path / "job.json"
    assert main(["hammerdb", "export", str(source), "-o", str(exported)]) == 0
    doc = json.loads(exported.read_text(encoding="utf-8"))
    assert validate_job_report(doc) == []
    nopm, tpm = _expected_per_minute(probe)
    assert nopm > 0 and tpm > 10 * nopm  # 15 dialog steps per order
    assert doc["job"]["benchmark"] == "TPROC-C" and doc["disclaimer"]["audited"] is False
    assert doc["result"]["nopm"] == pytest.approx(nopm, abs=0.001)
    assert doc["result"]["tpm"] == pytest.approx(tpm, abs=0.001)
    assert doc["benchmark_config"]["workload"] == "dbbench o2c (unofficial)"
    assert doc["benchmark_config"]["warehouses"] is None
    assert doc["benchmark_config"]["duration_minutes"] == pytest.approx(100 / 60, abs=1e-3)
    assert "dbbench o2c" in doc["report_hints"]["title"]
    assert "not from a TPROC-C run" in doc["disclaimer"]["text"]
    assert doc["dbbench"]["passed"] is True
    names = [row["name"] for row in doc["response_times"]["rows"]]
    assert names == ["VA01", "VL01N", "VA03", "VL02N", "VA05", "VF01"]
    va01 = doc["response_times"]["rows"][0]
    assert va01["avg_ms"] == pytest.approx(250.0) and va01["p99_ms"] == pytest.approx(250.0)
    points = doc["transaction_count"]["series"][0]["points"]
    assert points[0]["timestamp"].count(":") == 2 and max(p["value"] for p in points) > 0

    imported = tmp_path / "imported.json"
    assert main(["hammerdb", "import", str(exported), "-o", str(imported)]) == 0
    assert "imported TPROC-C job DBB" in capsys.readouterr().out
    back = HammerDBResult.read(imported)
    assert back.status == "complete" and back.source == "job-report"
    assert back.nopm == pytest.approx(nopm, abs=0.001)
    assert back.tpm == pytest.approx(tpm, abs=0.001)
    assert back.active_virtual_users == 10 and back.database == "DuckDB"
    assert [t.name for t in back.response_times] == names
    assert back.response_times[0].calls == va01["calls"] > 0
    assert len(back.transaction_counts) == len(points)
    assert back.config["virtual_users"] == 10
    assert back.config["workload"] == "dbbench o2c (unofficial)"


def test_o2c_search_exports_its_largest_passing_probe() -> None:
    """A search's artifact is its largest user count within the response-time limit, not
    simply its largest probe: 30 users at 1.5 s per step fail the 1 s limit."""
    ok, slow = _probe(20, 0.25), _probe(30, 1.5)
    doc = to_job_report(_result("search", [_probe(10, 0.25), ok, slow]))
    assert validate_job_report(doc) == []
    assert doc["benchmark_config"]["virtual_users"] == 20 and doc["dbbench"]["probe"] == 1
    assert doc["result"]["tpm"] == pytest.approx(_expected_per_minute(ok)[1], abs=0.001)
    failing = to_job_report(_result("search", [slow]))  # none passes: the last, marked so
    assert validate_job_report(failing) == [] and failing["dbbench"]["passed"] is False
    assert any("above the limit" in r for r in failing["dbbench"]["reasons"])


def test_empty_o2c_result_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "empty.json"
    _result("run", []).write(source)
    assert main(["hammerdb", "export", str(source)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no probe" in err


def test_compare_puts_o2c_beside_tpch_and_hammerdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One landscape of every family: TPC-H first, then HammerDB, then o2c (with the published
    SD rows) — in text, md and as one self-contained HTML page."""
    from hammerdb_helpers import DATA
    from reports_fixtures import make_result

    make_result().write(tmp_path / "tpch" / "result.json")
    store = DATA / "pg_tprocc.hammer.DB"
    assert main(["hammerdb", "import", str(store), "-o", str(tmp_path / "tprocc.json")]) == 0
    _result("run", [_probe(20, 0.4)]).write(tmp_path / "o2c.json")
    paths = [str(tmp_path / n) for n in ("tpch", "tprocc.json", "o2c.json")]
    capsys.readouterr()
    assert main(["compare", *paths]) == 0
    text = capsys.readouterr().out
    landscape, hammerdb, o2c = (
        text.index("Performance landscape"),
        text.index("HammerDB results"),
        text.upper().index("O2C PERFORMANCE LANDSCAPE"),
    )
    assert landscape < hammerdb < o2c, text
    assert "not comparable" in text[o2c:].lower()
    assert main(["compare", *paths, "-f", "html", "-o", str(tmp_path / "all.html")]) == 0
    page = (tmp_path / "all.html").read_text()
    assert page.count("<html") == 1 and page.count("</body>") == 1
    assert page.index("HammerDB results") < page.index('<section class="o2c">')
    assert page.index('<section class="o2c">') < page.index("</body>")
    assert main(["compare", paths[1], paths[2], "-f", "md"]) == 0  # no TPC-H result
    md = capsys.readouterr().out
    assert md.index("| TPROC-C |") < md.index("# o2c performance landscape")
