"""Every TPC-H output shows each result's ACID verdict: a result without an ACID result says
"ACID: not run" and is not compliant for that reason in text, Markdown, HTML and JSON; and
``dbbench compare``, the suite's comparison and the site show per result "ACID: passed
(tests ...; failures ...)", "failed: ...", "not run" or "not supported"."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from reports_fixtures import make_result

from dbbench.cli import main
from dbbench.reports.acid.model import ALL_TESTS, AcidCheck, AcidResult
from dbbench.reports.model import EngineInfo
from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, write_suite_reports
from dbbench.reports.tpch.acid import NOT_RUN, attach
from dbbench.reports.tpch.compliance import judge
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.model import BenchmarkResult

NOT_COMPLIANT = "ACID: not run: no ACID result of this engine and configuration is attached"


def _acid(failed: str = "", not_supported: str = "") -> AcidResult:
    tpch = make_result()
    return AcidResult(
        engine=EngineInfo(name="duckdb", url="duckdb:///q.duckdb", version="1.4.1"),
        system=tpch.system,
        kit_version="0.1.0",
        scale_factor=1.0,
        qualification=True,
        checks=[]
        if not_supported
        else [
            AcidCheck(name=n, verdict="failed" if n == failed else "passed", message="at txn2")
            for n in ALL_TESTS
        ],
        failures_exercised={"system crash (process or server killed)": "SIGKILL"},
        not_supported=not_supported,
        status="complete",
    )


def _with(acid: AcidResult | None) -> BenchmarkResult:
    """The hand-built run with ``acid`` attached, judged as ``dbbench run --acid`` judges."""
    result = make_result(acid=None)
    if acid is not None:
        attach(result, acid)
    result.compliance = judge(result)
    return result


#: label -> (its result, the verdict line every comparison must show for it)
CASES = {
    "passed": (_with(_acid()), "ACID: passed (tests atomicity-commit, atomicity-rollback"),
    "failed": (_with(_acid(failed="isolation-3")), "ACID: failed: isolation-3: at txn2"),
    "none": (_with(None), NOT_RUN),
    "nosupport": (_with(_acid(not_supported="no transactions")), "ACID: not supported (no"),
}


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_a_run_without_an_acid_result_says_not_run_and_is_not_compliant(fmt: str) -> None:
    shown = render(make_result(acid=None), fmt)
    if fmt == "html":
        shown = html.unescape(shown)
    assert NOT_RUN in shown
    assert NOT_COMPLIANT in shown  # the compliance section's reason
    assert "not compliant" in shown.lower()
    passed = render(make_result(), fmt)  # the same run with a passed ACID result: compliant
    assert "ACID: not run" not in passed and NOT_COMPLIANT not in passed


def test_a_run_without_an_acid_result_in_json() -> None:
    data = json.loads(render(make_result(acid=None), "json"))
    assert data["compliance"]["compliant"] is False
    assert [r for r in data["compliance"]["reasons"] if r.startswith(NOT_COMPLIANT)]
    assert NOT_RUN in data["notes"]
    assert data["result"]["acid"] is None
    assert json.loads(render(make_result(), "json"))["compliance"]["compliant"] is True


def _written(tmp_path: Path) -> list[Path]:
    paths = []
    for label, (result, _line) in CASES.items():
        path = tmp_path / "in" / label / "result.json"
        path.parent.mkdir(parents=True)
        result.write(path)
        paths.append(path.parent)
    return paths


@pytest.mark.parametrize("fmt", ["text", "md", "html", "json"])
def test_compare_shows_each_results_acid_verdict(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *map(str, _written(tmp_path)), "-f", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        verdicts = {v["subject"]: v for v in json.loads(out)["acid"]["verdicts"]}
        for label, (_result, line) in CASES.items():
            assert verdicts[label]["outcome"].startswith(line), label
            assert verdicts[label]["passed"] == ("pass" if label == "passed" else "fail")
        return
    shown = html.unescape(out) if fmt == "html" else out
    for label, (_result, line) in CASES.items():
        said = [s for s in shown.splitlines() if line in s]
        assert said and label in said[0], (label, shown[-3000:])


def test_the_suite_comparison_shows_each_entrys_acid_verdict(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    entries = []
    for label, (result, _line) in CASES.items():
        path = out / label / "result.json"
        path.parent.mkdir(parents=True)
        result.write(path)
        entries.append(EntryRecord(label, "duckdb:///x", 1.0, 1, label, status="ok"))
    SuiteIndex("suite.toml", "passed", entries).write(out)
    md, page, js = (p.read_text() for p in write_suite_reports(out))
    for label, (_result, line) in CASES.items():
        for shown in (md, html.unescape(page)):
            said = [s for s in shown.splitlines() if line in s]
            assert said and label in said[0], label
    verdicts = json.loads(js)["comparisons"][0]["acid"]["verdicts"]
    assert [(v["subject"], v["outcome"].startswith(CASES[v["subject"]][1])) for v in verdicts] == [
        (label, True) for label in CASES
    ]


def test_the_site_shows_each_results_acid_verdict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["site", *map(str, _written(tmp_path)), "-o", str(site)]) == 0
    index = html.unescape((site / "index.html").read_text())
    for _label, (_result, line) in CASES.items():
        assert json.dumps(line.removeprefix("ACID: "))[1:-1] in index  # the ACID column
    assert '["acid", "ACID"]' in (site / "assets" / "site.js").read_text()
    manifest = json.loads((site / "manifest.json").read_text())
    assert len(manifest["results"]) == len(CASES)  # each verifies: none refused
    pages = [html.unescape(p.read_text()) for p in (site / "r").glob("*.html")]
    for _label, (_result, line) in CASES.items():  # each result's own page: its verdict
        assert sum(line in page for page in pages) == 1, line
