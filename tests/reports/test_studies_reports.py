"""Suite comparisons and scaling studies built from saved results (no engine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from reports_fixtures import ROOT, make_result

from dbbench.reports.studies.scaling import ScaleIndex, StepRecord, build_study
from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, build_comparisons

SHEET = ROOT / "examples" / "cost-sheets" / "cloud-vm-3y.toml"


def test_suite_comparison_with_repetitions_and_a_cost_sheet(tmp_path: Path) -> None:
    index = SuiteIndex("suite.toml", "a")
    for name, factor in (("a", 1.0), ("b", 2.0)):
        for rep in (1, 2):
            result = make_result()
            for run in result.runs:
                for iv in run.intervals:
                    iv.seconds *= factor
            run_dir = f"{name}-sf1-r{rep}"
            result.write(tmp_path / run_dir / "result.json")
            record = EntryRecord(name, "duckdb", 1.0, rep, run_dir, "ok")
            record.cost_sheet = str(SHEET) if name == "b" else ""
            index.entries.append(record)
    (c,) = build_comparisons(tmp_path, index)
    assert [v.label for v in c.entries] == ["a #1", "a #2", "b #1", "b #2"]
    assert c.baseline == "a #1"
    q1 = next(q for q in c.queries if q.column == "Q1")
    # Q1: 1.1 s in both power tests (1.6 and 2.1 s in the streams, not pooled in)
    assert q1.medians[0] == pytest.approx(1.1) and q1.medians[2] == pytest.approx(2.2)
    assert q1.speedups == pytest.approx([1.0, 1.0, 0.5, 0.5])
    assert c.geomean_speedups == pytest.approx([1.0, 1.0, 0.5, 0.5])
    assert c.entries[0].price_performance == ""
    assert c.entries[2].price_performance.endswith("USD")


def test_scaling_study_numbers(tmp_path: Path) -> None:
    steps = []
    for n in (1, 2, 4):
        make_result(streams=n).write(tmp_path / f"streams-{n}" / "result.json")
        steps.append(StepRecord(n, f"streams-{n}", "ok"))
    steps.append(StepRecord(8, "streams-8", "failed", "server gone"))
    study = build_study(tmp_path, ScaleIndex("duckdb", 1.0, steps))
    rows = {r.streams: r for r in study.rows}
    for n in (1, 2, 4):
        run = make_result(streams=n).runs[-1]
        ts = (run.throughput_end or 0) - (run.throughput_start or 0)
        assert rows[n].ts_seconds == pytest.approx(ts)
        assert rows[n].sets_per_day == pytest.approx(n * 86400 / ts)
    assert rows[1].relative == 1.0
    assert rows[4].relative == pytest.approx(rows[4].sets_per_hour / rows[1].sets_per_hour)
    assert rows[4].efficiency == pytest.approx(rows[4].relative / 4)
    assert rows[8].relative is None and rows[8].status == "failed"
    assert any("8 streams: failed: server gone" in n for n in study.notes)
