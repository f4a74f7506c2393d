"""``dbbench scale``: the throughput test at 1, 2 and 4 streams on one loaded database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from studies_helpers import dbbench

from dbbench.commands.scale import stream_series
from dbbench.errors import DbbenchError
from dbbench.reports.loading import load_result


def test_scaling_study_with_one_two_and_four_streams(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scale"
    args = ("scale", "-s", "0.01", "-S", "1,2,4", "--telemetry-interval", "0.5", "-o", str(out))
    assert dbbench(*args) == 0
    study = json.loads((out / "scaling.json").read_text())
    rows = study["rows"]
    assert [r["streams"] for r in rows] == [1, 2, 4]
    assert all(r["status"] == "ok" and r["failed_queries"] == 0 for r in rows)
    seen_sets: list[int] = []
    for r in rows:
        result = load_result(out / f"streams-{r['streams']}")
        run = result.runs[0]
        queries = [iv for iv in run.intervals if iv.kind == "query"]
        assert len(queries) == 22 * r["streams"] and {iv.phase for iv in queries} == {"throughput"}
        assert result.load is not None and result.load.reused  # one load for the whole study
        ts = (run.throughput_end or 0) - (run.throughput_start or 0)
        assert r["ts_seconds"] == pytest.approx(ts)
        assert r["sets_per_day"] == pytest.approx(r["streams"] * 86400 / ts)
        assert r["sets_per_hour"] == pytest.approx(r["sets_per_day"] / 24)
        assert r["cpu_busy"] is not None and r["cpu_busy"] > 0
        assert not set(run.update_sets) & set(seen_sets), "an update set was used twice"
        seen_sets += run.update_sets
    assert rows[0]["relative"] == 1.0 and rows[0]["efficiency"] == 1.0
    for r in rows[1:]:
        assert r["relative"] == pytest.approx(r["sets_per_hour"] / rows[0]["sets_per_hour"])
        assert r["efficiency"] == pytest.approx(r["relative"] / r["streams"])
    md = (out / "scaling.md").read_text()
    assert "| 4 |" in md and "runs per day" in md and "not a compliant run" in md
    assert 'class="chart scaling"' in (out / "scaling.html").read_text()
    # a second invocation keeps what finished
    before = (out / "streams-2" / "result.json").stat().st_mtime_ns
    capsys.readouterr()
    assert dbbench(*args) == 0
    assert "2 streams: finished before, kept" in capsys.readouterr().err
    assert (out / "streams-2" / "result.json").stat().st_mtime_ns == before


def test_scaling_study_tables_each_steps_cold_and_hot_passes_apart(tmp_path: Path) -> None:
    """``--cold --repetitions 2``: per step, the cold passes (DuckDB's file reopened before
    each) and the hot ones, each kind's median on its own, in the scaling page."""
    out = tmp_path / "scale"
    args = ("scale", "-s", "0.01", "-S", "1,2", "--telemetry-interval", "0", "-o", str(out))
    assert dbbench(*args, "--cold", "--repetitions", "2") == 0
    table = json.loads((out / "scaling.json").read_text())["passes"]
    entries = {e["label"]: e for e in table["entries"]}
    assert list(entries) == ["1 streams", "2 streams"]
    for label, streams in (("1 streams", 1), ("2 streams", 2)):
        assert entries[label]["cold"] == "cold" and entries[label]["cold_passes"] == 2
        assert entries[label]["hot_passes"] == 2 and entries[label]["failed"] == 0
        passes = load_result(out / f"streams-{streams}").passes
        assert passes is not None
        i = streams - 1
        q9 = next(line for line in table["lines"] if line["column"] == "Q9")
        for kind in ("cold", "hot"):
            mine = sorted(p.seconds["Q9"] for p in passes.passes if p.kind == kind)
            assert q9[kind][i] == pytest.approx(sum(mine) / 2)  # its own kind's median only
    assert [line["column"] for line in table["lines"]] == [f"Q{q}" for q in range(1, 23)]
    md = (out / "scaling.md").read_text()
    assert "| Query | 1 streams cold ms | hot ms | 2 streams cold ms | hot ms |" in md
    assert "- 2 streams: 2 cold and 2 hot passes; engine restarted or reopened" in md
    html = (out / "scaling.html").read_text()
    assert "<h2>Cold and hot passes</h2>" in html and html.count("<td>Q") == 22


def test_stream_series() -> None:
    assert stream_series(None, 8) == [1, 2, 4, 8]
    assert stream_series(None, 6) == [1, 2, 4]
    assert stream_series("4,1, 2", 8) == [1, 2, 4]
    for bad in ("1,x", "0,1", ",", "1,1", "1,,2", "2,"):
        with pytest.raises(DbbenchError):
            stream_series(bad, 8)


def test_scale_refuses_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dbbench("scale", "-S", "1,two", "-o", str(tmp_path / "x")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "comma-separated" in err
    assert not (tmp_path / "x").exists()
