"""``suite --repeat 3``: two DuckDB configurations run interleaved (the order rotated), and
``compare`` of the suite folder gives per-query 95 % intervals over the repetitions and a
headline verdict in text, Markdown, HTML and JSON."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from studies_helpers import dbbench

from dbbench.reports.studies.suite import SuiteIndex
from dbbench.reports.tpch.fair import t95

QUERIES = [f"Q{n}" for n in range(1, 23)]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("repeat")
    suite = tmp / "suite.toml"
    suite.write_text(
        "scale_factor = 0.01\nstreams = 1\nruns = 1\nseed = 3\ntelemetry_interval = 0\n"
        'baseline = "one"\n\n[[engine]]\nname = "one"\nurl = "duckdb://?threads=1"\n\n'
        '[[engine]]\nname = "two"\nurl = "duckdb://?threads=2"\n',
        encoding="utf-8",
    )
    out = tmp / "out"
    assert dbbench("suite", str(suite), "-o", str(out), "--repeat", "3") == 0
    return out


def _power(path: Path) -> dict[str, float]:
    data = json.loads((path / "result.json").read_text())
    return {
        f"Q{iv['query']}": iv["seconds"]
        for iv in data["runs"][0]["intervals"]
        if iv["kind"] == "query" and iv["phase"] == "power"
    }


def test_repetitions_run_interleaved_with_the_order_rotated(suite_dir: Path) -> None:
    index = SuiteIndex.read(suite_dir)
    ran = sorted(index.entries, key=lambda e: e.started or 0)
    assert [(e.name, e.repetition) for e in ran] == [
        ("one", 1), ("two", 1), ("two", 2), ("one", 2), ("one", 3), ("two", 3),
    ]  # fmt: skip
    assert all(e.status == "ok" for e in ran)


def test_compare_gives_per_query_intervals_and_a_verdict_in_every_format(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dbbench("compare", str(suite_dir), "-f", "json") == 0
    doc = json.loads(capsys.readouterr().out)["speedups"]
    assert [(e["label"], e["repetitions"]) for e in doc["entries"]] == [
        ("one-sf0.01", 3),
        ("two-sf0.01", 3),
    ]
    # Q6's interval recomputed from the six result files: repetition i paired with i
    logs = [
        math.log(
            _power(suite_dir / f"one-sf0.01-r{i}")["Q6"]
            / _power(suite_dir / f"two-sf0.01-r{i}")["Q6"]
        )
        for i in (1, 2, 3)
    ]
    half = t95(2) * statistics.stdev(logs) / math.sqrt(3)
    q6 = next(q for q in doc["queries"] if q["query"] == "Q6")
    assert q6["speedup"][1] == pytest.approx(math.exp(statistics.mean(logs)))
    assert q6["low"][1] == pytest.approx(math.exp(statistics.mean(logs) - half))
    assert q6["high"][1] == pytest.approx(math.exp(statistics.mean(logs) + half))
    assert [q["query"] for q in doc["queries"]] == QUERIES
    two = doc["entries"][1]
    assert two["speedup_low"] <= two["speedup"] <= two["speedup_high"]
    spans = two["speedup_low"] <= 1.0 <= two["speedup_high"]
    assert ("not distinguishable" in two["verdict"]) == spans
    assert spans or ("faster than one-sf0.01" in two["verdict"]) != (
        "slower than one-sf0.01" in two["verdict"]
    )
    for fmt in ("text", "md", "html"):
        assert dbbench("compare", str(suite_dir), "-f", fmt) == 0
        out = capsys.readouterr().out
        if fmt == "md":  # Markdown shows the brackets escaped (\[ \]): not a link
            out = out.replace("\\[", "[").replace("\\]", "]")
        assert "two-sf0.01 (x3)" in out and "95 % interval" in out, fmt
        assert two["verdict"].split(" (")[0] in out, fmt
        assert f"{q6['speedup'][1]:.2f}x [{q6['low'][1]:.2f}-{q6['high'][1]:.2f}]" in out, fmt
    md = (suite_dir / "comparison.md").read_text()
    assert "over the repetitions" in md and "two (x3)" in md
