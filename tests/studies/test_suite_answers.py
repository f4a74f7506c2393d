"""Answers everywhere (issue 35): a suite of two DuckDB entries, one of them a database whose
NATION table was altered after the load (one nation renamed), so that it returns wrong rows.
The suite compares the entries' kept digests and names the first query where they part;
``verify --answers`` then finds the wrong entry's disagreements, which make it invalid, and
every report format, ``compare``, the suite's comparison and the site say so per result."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from studies_helpers import dbbench

from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.queries.order import stream_order
from dbbench.queries.params import stream_parameters
from dbbench.reports.loading import load_result
from dbbench.reports.studies.suite import SuiteIndex, write_suite_reports
from dbbench.reports.tpch.formats import COMPARE_FORMATS, REPORT_FORMATS

SEED = 5
SF = 0.01


def _flat(text: str) -> str:
    """The text with a table's borders and line breaks (the text format wraps) as blanks."""
    return " ".join(text.replace("\u2502", " ").split())


@dataclass(frozen=True)
class Suite:
    out: Path
    good: Path  # the entries' run directories
    bad: Path
    first_comparison: str  # comparison.md as the suite wrote it (before any verify)
    altered: str  # the nation renamed


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    folder = tmp_path_factory.mktemp("answers_suite")
    bad_db = folder / "altered.duckdb"
    engine = open_engine(f"duckdb:///{bad_db}")
    try:
        load_database(engine, SF, jobs=1)
    finally:
        engine.close()
    # a nation outside Q2's region: Q14 and Q2 (the power stream's first two) never see it,
    # Q9 (the third) groups by every nation's name
    region = stream_parameters(SEED, SF)[2][2]
    con = duckdb.connect(str(bad_db))
    try:
        key, name = con.execute(
            "SELECT n_nationkey, n_name FROM nation JOIN region ON n_regionkey = r_regionkey "
            "WHERE r_name <> ? ORDER BY n_nationkey LIMIT 1",
            [region],
        ).fetchone() or (None, None)
        con.execute("UPDATE nation SET n_name = 'ATLANTIS' WHERE n_nationkey = ?", [key])
    finally:
        con.close()
    suite_file = folder / "suite.toml"
    suite_file.write_text(
        f"""
scale_factor = {SF}
streams = 1
runs = 1
seed = {SEED}
telemetry_interval = 0
baseline = "good"

[[engine]]
name = "good"
url = "duckdb"

[[engine]]
name = "altered"
url = "duckdb:///{bad_db}"
""",
        encoding="utf-8",
    )
    out = folder / "out"
    dbbench("suite", str(suite_file), "-o", str(out))
    index = SuiteIndex.read(out)
    dirs = {e.name: out / e.run_dir for e in index.entries}
    yield Suite(out, dirs["good"], dirs["altered"], (out / "comparison.md").read_text(), str(name))


def test_the_suite_names_the_first_query_where_kept_digests_part(suite: Suite) -> None:
    bad = load_result(suite.bad)
    assert bad.runs[0].params["0"]["2"][2] == stream_parameters(SEED, SF)[2][2]
    assert stream_order(0)[:3] == [14, 2, 9]
    parted = [x for x in suite.first_comparison.splitlines() if "parts from" in x]
    assert len(parted) == 1, suite.first_comparison
    assert "answers: altered parts from good first at run 1 stream 0 Q9 " in parted[0]
    data = json.loads((suite.out / "comparison.json").read_text())["comparisons"]
    assert any("parts from good first at run 1 stream 0 Q9 " in w for w in data[0]["warnings"])
    # not yet verified: each entry kept its 2 x 22 outputs (power, one throughput stream)
    for entry in data[0]["entries"]:
        assert entry["answers"].startswith("44 kept, not checked"), entry


def test_verify_finds_the_altered_entry_invalid_and_every_view_says_so(
    suite: Suite, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    capsys.readouterr()
    assert dbbench("verify", str(suite.good), "--answers") == 0
    assert dbbench("verify", str(suite.bad), "--answers") == 1
    captured = capsys.readouterr()
    assert "run 1 stream 0 Q9: row " in captured.err
    assert "run 1 stream 0 Q14:" not in captured.err
    good_line, bad_line = (load_result(d).answers.check for d in (suite.good, suite.bad))  # type: ignore[union-attr]
    assert good_line is not None and good_line.disagree == 0 and good_line.checked > 0
    assert bad_line is not None and bad_line.disagree > 0
    want_bad = f"{bad_line.disagree} disagree"
    bad = load_result(suite.bad)
    assert not bad.compliance.compliant
    assert any(r.code == "answers-disagree" for r in bad.compliance.reasons)

    # every report format: the answers line, the disagreement among the reasons
    for fmt in REPORT_FORMATS:
        assert dbbench("report", str(suite.bad), "-f", fmt, "-o", str(tmp_path / fmt)) == 0
        text = _flat((tmp_path / fmt).read_text())
        assert want_bad in text and "not checked (overlapped a refresh)" in text, fmt
        assert "kept output(s) checked against DuckDB (embedded) disagree" in text, fmt
        assert dbbench("report", str(suite.good), "-f", fmt, "-o", str(tmp_path / fmt)) == 0
        assert "all agree" in (tmp_path / fmt).read_text(), fmt

    # compare: a line per result, and the disagreeing one warned of
    for fmt in COMPARE_FORMATS:
        out = tmp_path / f"compare.{fmt}"
        args = ["compare", str(suite.good), str(suite.bad), "-f", fmt, "-o", str(out)]
        assert dbbench(*args) == 0
        text = _flat(out.read_text())
        assert "all agree" in text and want_bad in text and "the result is invalid" in text, fmt
    rows = json.loads((tmp_path / "compare.json").read_text())["rows"]
    assert {r["label"]: "all agree" in r["answers"] for r in rows} == {
        suite.good.name: True,
        suite.bad.name: False,
    }

    # the suite's comparison, rebuilt: the altered entry is invalid for its answers
    write_suite_reports(suite.out)
    data = json.loads((suite.out / "comparison.json").read_text())["comparisons"][0]
    entries = {e["name"]: e for e in data["entries"]}
    assert entries["altered"]["status"] == "invalid" and want_bad in entries["altered"]["answers"]
    assert "all agree" in entries["good"]["answers"]
    for name in ("comparison.md", "comparison.html"):
        text = (suite.out / name).read_text()
        assert want_bad in text and "all agree" in text, name

    # the site: each row's answers, the altered one not compliant
    site = tmp_path / "site"
    assert dbbench("site", str(suite.good), str(suite.bad), "-o", str(site)) == 0
    page = (site / "index.html").read_text()
    data = json.loads(page[page.index('id="site-data">') + 15 : page.index("</script>")])
    by_answer = {("all agree" in r["answers"]): r["compliant"] for r in data["rows"]}
    assert by_answer[False] is False and len(data["rows"]) == 2
