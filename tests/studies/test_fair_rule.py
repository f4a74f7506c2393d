"""The one comparison rule (``reports.tpch.fair``) on hand-built results: the suite's speed-up
is the geometric mean over Q1-Q22 of the entries' own power-test times, a failed query is
charged the stated penalty and marks its entry invalid in every format, ``compare`` and the
suite share one ratio direction, and labels are never cut at a dot."""

from __future__ import annotations

import json
import math
import statistics
from html import unescape
from pathlib import Path

import pytest
from reports_fixtures import make_result
from studies_helpers import dbbench

from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, write_suite_reports
from dbbench.reports.tpch.fair import PENALTY_RULE, Ratio, build
from dbbench.reports.tpch.model import BenchmarkResult

QUERIES = [f"Q{n}" for n in range(1, 23)]


def _slow(factor: float, rf_factor: float = 1.0) -> BenchmarkResult:
    result = make_result()
    for run in result.runs:
        for iv in run.intervals:
            iv.seconds *= factor if iv.kind == "query" else rf_factor
            iv.end = iv.start + iv.seconds
    return result


def _timed_out(result: BenchmarkResult, query: int, timeout: float) -> BenchmarkResult:
    result.config["query_timeout"] = timeout
    for run in result.runs:
        for iv in run.intervals:
            if iv.query == query and iv.stream in (0, 1):  # the power test and one stream
                iv.status, iv.error = "timeout", f"exceeded --query-timeout {timeout:g} s"
    return result


def _power(path: Path) -> dict[str, float]:
    """Each query's power-test seconds, the median over the runs, from the file itself."""
    data = json.loads((path / "result.json").read_text())
    times: dict[str, list[float]] = {}
    for run in data["runs"]:
        for iv in run["intervals"]:
            if iv["kind"] == "query" and iv["phase"] == "power":
                times.setdefault(f"Q{iv['query']}", []).append(iv["seconds"])
    return {q: statistics.median(v) for q, v in times.items()}


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suite of three entries: the baseline, one 2x slower in its queries but 30x faster
    in its refresh functions, and one whose Q9 timed out (power and one stream)."""
    out = tmp_path_factory.mktemp("fair") / "suite"
    entries = {
        "duckdb-sf0.1": make_result(),
        "polars-sf0.1": _slow(2.0, rf_factor=1 / 30),
        "pg-sf0.1": _timed_out(_slow(1.5), 9, 4.0),
    }
    index = SuiteIndex("suite.toml", "duckdb-sf0.1")
    for name, result in entries.items():
        result.write(out / name / "result.json")
        index.entries.append(EntryRecord(name, "duckdb", 1.0, 1, name, status="ok"))
    index.write(out)
    write_suite_reports(out)
    return out


def test_suite_speedup_is_the_geomean_over_q1_q22_of_own_timings(suite_dir: Path) -> None:
    doc = json.loads((suite_dir / "comparison.json").read_text())["comparisons"][0]
    assert [q["column"] for q in doc["queries"]] == QUERIES  # RF1/RF2 apart
    assert [q["column"] for q in doc["refresh"]] == ["RF1", "RF2"]
    base = _power(suite_dir / "duckdb-sf0.1")
    own = _power(suite_dir / "polars-sf0.1")
    expected = math.exp(sum(math.log(base[q] / own[q]) for q in QUERIES) / 22)
    assert expected == pytest.approx(0.5)  # its 30x faster refresh functions count for nothing
    assert doc["geomean_speedups"][0] == pytest.approx(1.0)
    assert doc["geomean_speedups"][1] == pytest.approx(expected)
    assert "above 1x the entry is faster" in doc["direction"]


def test_a_timed_out_query_is_charged_and_its_entry_invalid_in_every_format(
    suite_dir: Path,
) -> None:
    doc = json.loads((suite_dir / "comparison.json").read_text())["comparisons"][0]
    pg = doc["entries"][2]
    assert pg["status"] == "invalid" and "Q9" in pg["message"]
    q9 = next(q for q in doc["queries"] if q["column"] == "Q9")
    assert q9["medians"][2] == 4.0 and q9["penalised"] == [False, False, True]  # the timeout
    base, own = _power(suite_dir / "duckdb-sf0.1"), _power(suite_dir / "pg-sf0.1")
    logs = [math.log(base[q] / (4.0 if q == "Q9" else own[q])) for q in QUERIES]
    assert doc["geomean_speedups"][2] == pytest.approx(math.exp(sum(logs) / 22))  # not dropped
    assert doc["penalty_rule"] == PENALTY_RULE
    md = (suite_dir / "comparison.md").read_text()
    html = unescape((suite_dir / "comparison.html").read_text())
    for text in (md, html):
        assert "INVALID" in text and "PENALTY" in text and "charged the run's query timeout" in text
    # compare of the same entries: text, Markdown, HTML and JSON say so too
    dirs = [str(suite_dir / d) for d in ("duckdb-sf0.1", "pg-sf0.1")]
    for fmt in ("text", "md", "html"):
        out = suite_dir / f"compare.{fmt}"
        assert dbbench("compare", *dirs, "-f", fmt, "-o", str(out)) == 0
        text = unescape(out.read_text())
        assert "INVALID" in text and "PENALTY" in text, fmt
    assert dbbench("compare", *dirs, "-f", "json", "-o", str(suite_dir / "c.json")) == 0
    speedups = json.loads((suite_dir / "c.json").read_text())["speedups"]
    assert [e["invalid"] for e in speedups["entries"]] == [False, True]
    q9c = next(q for q in speedups["queries"] if q["query"] == "Q9")
    assert q9c["seconds"][1] == 4.0 and q9c["penalised"] == [False, True]


def test_without_a_timeout_a_failure_costs_three_times_the_slowest() -> None:
    failed = make_result()
    for iv in failed.runs[0].intervals:
        if iv.query == 6 and iv.phase == "throughput":
            iv.status, iv.error = "error", "out of memory"  # a throughput stream only
    fair = build([("base", [make_result()]), ("failed", [failed])])
    q6 = next(q for q in fair.queries if q.column == "Q6")
    assert q6.seconds[1] == pytest.approx(3 * 1.6) and q6.penalised == [False, True]
    assert fair.invalid == [False, True] and "invalid" in fair.verdict(1)


def test_compare_and_the_suite_share_one_direction_and_keep_labels_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, result in (("x-sf0.1", make_result()), ("x-sf0.5", _slow(2.0))):
        result.write(tmp_path / name / "result.json")
    make_result().write(tmp_path / "duckdb-sf0.1.json")
    args = [
        str(tmp_path / "x-sf0.1"),
        str(tmp_path / "x-sf0.5"),
        str(tmp_path / "duckdb-sf0.1.json"),
    ]
    assert dbbench("compare", *args, "-f", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert [e["label"] for e in doc["speedups"]["entries"]] == [
        "x-sf0.1",
        "x-sf0.5",
        "duckdb-sf0.1",
    ]
    slow = doc["speedups"]["entries"][1]
    assert slow["speedup"] == pytest.approx(0.5)  # 2x slower: 0.50x, as in the suite
    assert slow["verdict"].startswith("x-sf0.5: 0.50x against x-sf0.1 (one repetition")
    assert "no verdict" in slow["verdict"]
    assert dbbench("compare", *args, "-f", "md") == 0
    md = capsys.readouterr().out
    q14 = next(line for line in md.splitlines() if line.startswith("| Q14 |"))  # the landscape
    assert q14.startswith("| Q14 | 2.4 s / 2,400.0 ms (1.00x) | 4.8 s / 4,800.0 ms (0.50x) |")
    assert "above 1x the entry is faster than the baseline" in md


def test_a_verdict_names_no_winner_when_the_interval_spans_one() -> None:
    assert Ratio(1.2, 0.9, 1.6).verdict == "not distinguishable"
    assert Ratio(1.2, 1.1, 1.3).verdict == "faster"
    fair = build([("a", [make_result()] * 2), ("b", [make_result(), _slow(1.3)])])
    assert fair.headline[1].low is not None and fair.headline[1].low < 1 < fair.headline[1].high  # type: ignore[operator]
    assert "not distinguishable from a" in fair.verdict(1)
    assert "faster than" not in fair.verdict(1) and "slower than" not in fair.verdict(1)


def test_the_speedup_chart_tells_twelve_entries_apart_and_marks_clipped_bars(
    tmp_path: Path,
) -> None:
    import re

    from dbbench.reports.studies.suite import build_comparisons, speedup_svg
    from dbbench.reports.templating import environment

    index = SuiteIndex("suite.toml", "e0")
    for n in range(13):
        name = f"e{n}"
        (make_result() if n < 12 else _slow(20.0)).write(tmp_path / name / "result.json")
        index.entries.append(EntryRecord(name, "duckdb", 1.0, 1, name, status="ok"))
    (c,) = build_comparisons(tmp_path, index)
    svg = speedup_svg(c)
    classes = re.findall(r'<rect [^>]*class="(e\d+)', svg)
    assert sorted(set(classes), key=lambda k: int(k[1:])) == [f"e{i}" for i in range(12)]
    css = environment().get_template("report.css").render()
    fills = {
        re.search(rf"\.chart \.e{i}\b[^{{]*{{ fill: (#[0-9a-f]+)", css).group(1) for i in range(12)
    }  # type: ignore[union-attr]
    assert len(fills) == 12  # twelve distinct colours
    assert svg.count('class="e0 clipped"') == 22 and svg.count(">0.05x</text>") == 22


def test_other_parameters_or_kits_name_no_winner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _slow(2.0)
    for run in other.runs:
        run.seeds = {k: v + 7 for k, v in run.seeds.items()}
    make_result().write(tmp_path / "a" / "result.json")
    other.write(tmp_path / "b" / "result.json")
    assert dbbench("compare", str(tmp_path / "a"), str(tmp_path / "b"), "-f", "json") == 0
    verdict = json.loads(capsys.readouterr().out)["speedups"]["entries"][1]["verdict"]
    assert "not comparable" in verdict and "substitution parameters differ" in verdict
    assert "no winner" in verdict and "slower than" not in verdict


def test_a_query_a_stopped_run_never_ran_is_charged_too() -> None:
    stopped = make_result()
    for run in stopped.runs:
        run.intervals = [iv for iv in run.intervals if iv.query != 21]  # stopped before Q21
    fair = build([("base", [make_result()]), ("stopped", [stopped])])
    q21 = next(q for q in fair.queries if q.column == "Q21")
    assert q21.penalised == [False, True] and q21.seconds[1] == pytest.approx(3 * 3.1)
    assert fair.invalid == [False, True] and len(fair.queries) == 22


def test_a_suite_of_other_kits_names_no_winner_either() -> None:
    from dbbench.reports.studies.suite import EntryView, _pooled

    views = []
    for name, kit in (("a", "1.0"), ("b", "1.0"), ("a", "1.0"), ("b", "2.0")):
        result = make_result()
        result.kit_version = kit
        rep = 1 + sum(v.record.name == name for v in views)
        views.append(
            EntryView(name, EntryRecord(name, "duckdb", 0.01, rep, f"{name}-r{rep}"), result)
        )
    pooled = _pooled(views, "a")
    assert pooled is not None and pooled.not_comparable == ["kit versions differ (1.0, 2.0)"]
    assert "no winner named" in pooled.verdict(1)
