"""`dbbench report` and `dbbench compare` end to end, on hand-built result files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from reports_fixtures import ROOT, make_result

from dbbench.cli import main
from dbbench.reports.errors import ReportsError
from dbbench.reports.renderers import formats as output_formats
from dbbench.reports.tpch.compare import Landscape
from dbbench.reports.tpch.formats import (
    COMPARE_FORMATS,
    FORMATS,
    REPORT_FORMATS,
    choices_text,
    render_landscape,
)

PUBLISHED = sorted((ROOT / "examples" / "published").glob("*.toml"))
X4600_SHEET = ROOT / "examples" / "cost-sheets" / "sun-fire-x4600-m2-300gb.toml"


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    make_result().write(tmp_path / "run" / "result.json")
    return tmp_path / "run"


def test_report_writes_every_format(run_dir: Path, tmp_path: Path) -> None:
    for fmt in ("text", "md", "html", "json"):
        out = tmp_path / f"report.{fmt}"
        assert main(["report", str(run_dir), "--format", fmt, "-o", str(out)]) == 0
        assert "2,095.9" in out.read_text() or '"qphh": 2095.9' in out.read_text()


def test_report_prints_text_summary(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run_dir / "result.json")]) == 0
    out = capsys.readouterr().out
    assert "QphH@1" in out and "2,095.9" in out and "compliant" in out


def test_bad_cost_sheet_is_one_line_naming_line_and_field(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "bad.toml"
    text = X4600_SHEET.read_text().replace("quantity = 32", "quantity = 32.5")
    sheet.write_text(text)
    assert main(["report", str(run_dir), "-c", str(sheet)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    line = text.splitlines().index("quantity = 32.5") + 1
    assert f"bad.toml:{line}: item 2, field 'quantity'" in err


def test_missing_or_foreign_result_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "nope.json")]) == 1
    (tmp_path / "other.json").write_text('{"schema": "something-else"}')
    assert main(["report", str(tmp_path / "other.json")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "not a dbbench result" in err[1]


def test_unknown_format_is_a_usage_error(run_dir: Path) -> None:
    assert main(["report", str(run_dir), "--format", "pdf"]) == 2


def test_format_choices_and_help_come_from_the_one_registry(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert REPORT_FORMATS == tuple(output_formats()) == ("text", "md", "html", "json")
    assert tuple(FORMATS) == ("text", "md", "html")  # the TPC-H run's templates; JSON: its document
    assert COMPARE_FORMATS == ("text", "md", "html", "json")  # json: the landscape's data
    for command, choices in (("report", REPORT_FORMATS), ("compare", COMPARE_FORMATS)):
        assert main([command, "--help"]) == 0
        assert f"{choices_text(choices)}." in " ".join(capsys.readouterr().out.split())
    assert main(["compare", str(run_dir), "--format", "pdf"]) == 2
    assert "'pdf' is not one of text, md, html, json" in capsys.readouterr().err
    with pytest.raises(ReportsError, match=r"unknown compare format 'json'"):
        render_landscape(Landscape(rows=[], baseline="", warnings=[], ratios=[]), "json")


def test_compare_published_records_sorted_by_qphh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", *map(str, PUBLISHED), "--format", "md"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "300 |" in line]
    assert [r.split(" | ")[1] for r in rows] == ["HP DL785", "Sun Fire X4600 M2", "IBM x3950 M2"]
    assert "| 55,157.5 | 2.80 | 154,284 USD | 168 | 2009-07-06 |" in out


def test_compare_sorted_by_price_performance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", *map(str, PUBLISHED), "--sort", "price-performance"]) == 0
    out = capsys.readouterr().out
    assert out.index("Sun Fire") < out.index("HP DL785") < out.index("IBM x3950")


def test_compare_refuses_different_scale_factors(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(run_dir), str(PUBLISHED[0])]) == 1
    err = capsys.readouterr().err
    assert "not comparable: scale factors differ (1, 300)" in err
    assert main(["compare", str(run_dir), str(PUBLISHED[0]), "--force", "-f", "md"]) == 0
    captured = capsys.readouterr()
    assert "NOT COMPARABLE: scale factors differ" in captured.out
    assert "dbbench: warning: NOT COMPARABLE" in captured.err


def test_compare_refuses_different_query_versions(
    tmp_path: Path, run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = make_result()
    other.query_version = "3.0.1"
    other.kit_version = "0.2.0"
    other.write(tmp_path / "other" / "result.json")
    assert main(["compare", str(run_dir), str(tmp_path / "other")]) == 1
    assert "query versions differ (2.17.3, 3.0.1)" in capsys.readouterr().err


def test_compare_local_runs_with_cost_sheet_and_ratios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fast, slow = make_result(scale_factor=300, streams=6), make_result(scale_factor=300, streams=6)
    for run in slow.runs:
        for iv in run.intervals:
            iv.seconds *= 2
        run.throughput_end = run.throughput_start + 2 * (run.throughput_end - run.throughput_start)  # type: ignore[operator]
    fast.write(tmp_path / "fast" / "result.json")
    slow.write(tmp_path / "slow" / "result.json")
    args = ["compare", str(tmp_path / "slow"), str(tmp_path / "fast"), "-c", str(X4600_SHEET)]
    assert main([*args, "-f", "md"]) == 0
    out = capsys.readouterr().out
    assert "| Q14 | 4.8 s / 4,800.0 ms (1.00x) | 2.4 s / 2,400.0 ms (2.00x) |" in out
    fast_row = next(line for line in out.splitlines() if line.startswith("| fast |"))
    assert "| 2.00x | 2.00x |" in fast_row  # QphH and throughput relative to "slow"


def test_compare_ratios_use_full_resolution_where_the_spec_rounding_ties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Queries under the spec's 0.1 s floor all report 0.1 s; the per-query ratios divide
    the measured times, so 0.02 s against 0.05 s is 2.50x faster, not a 1.00x tie."""
    slow, fast = make_result(), make_result()
    for result, secs in ((slow, 0.05), (fast, 0.02)):
        for run in result.runs:
            for iv in run.intervals:
                if iv.phase == "power" and iv.query == 6:
                    iv.end = iv.start + secs
                    iv.seconds = secs
    slow.write(tmp_path / "slow" / "result.json")
    fast.write(tmp_path / "fast" / "result.json")
    assert main(["compare", str(tmp_path / "slow"), str(tmp_path / "fast"), "-f", "md"]) == 0
    out = capsys.readouterr().out
    q6 = next(line for line in out.splitlines() if line.startswith("| Q6 |"))
    assert q6 == "| Q6 | 0.1 s / 50.0 ms (1.00x) | 0.1 s / 20.0 ms (2.50x) |", q6


def test_reports_import_nothing_from_the_pipeline() -> None:
    code = (
        "import sys, dbbench.reports.tpch.formats, dbbench.reports.loading\n"
        "import dbbench.reports.tpch.schema\n"
        "import dbbench.reports.tpch.render, dbbench.reports.tpch.compare\n"
        "pipeline = ('dbgen', 'queries', 'drivers')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in pipeline\n"
        "             or m.split('.')[:2] in [['dbbench', p] for p in pipeline])\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT / "tests")


def test_write_reports_takes_a_cost_sheet_path(tmp_path: Path) -> None:
    from dbbench.reports.tpch.render import write_reports

    paths = write_reports(make_result(), tmp_path / "out", X4600_SHEET)
    assert sorted(p.name for p in paths) == ["report.html", "report.md", "summary.txt"]
    assert "154,284 USD" in (tmp_path / "out" / "report.md").read_text()


def test_compare_html_is_self_contained(tmp_path: Path) -> None:
    out = tmp_path / "landscape.html"
    assert main(["compare", *map(str, PUBLISHED), "-f", "html", "-o", str(out)]) == 0
    html = out.read_text()
    assert html.count("<tr><td>") == 3 and "Sun Fire X4600 M2" in html
    for needle in ("<script", "<link", "src=", "href=", "url(", "http://", "https://"):
        assert needle not in html.lower()
