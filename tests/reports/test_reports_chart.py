"""The executive-summary chart [SPEC 8.4.2.3] and the HTML report's self-containment."""

from __future__ import annotations

import re

import pytest

from dbbench.reports.chart import render_svg, value_axis
from dbbench.reports.tpch.analysis import COLUMNS
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.render import build, chart_svg


@pytest.mark.parametrize(
    "longest", [0.1, 0.13, 0.97, 1.01, 3.3, 7.9, 12.0, 99.0, 100.5, 1234.0, 86399.0]
)
def test_axis_has_at_most_8_labels_and_tops_within_120_percent(longest: float) -> None:
    axis = value_axis(longest)
    assert 2 <= len(axis.ticks) <= 8
    assert longest <= axis.top <= 1.2 * longest + 1e-9
    assert axis.ticks[0] == 0 and axis.ticks[-1] <= axis.top + 1e-9


def test_chart_has_a_bar_pair_per_column_and_both_mean_lines(result: BenchmarkResult) -> None:
    run = build(result).runs[0]
    svg = chart_svg(run)
    assert svg.count('class="pw"') == len(COLUMNS) == 24
    assert svg.count('class="tp"') == 24
    assert svg.count('class="gm"') == 1 and svg.count('class="am"') == 1
    ticks = re.findall(r'class="tick">([^<]+)<', svg)
    assert len(ticks) - 1 <= 8  # value labels plus the "seconds" axis title


def test_the_power_line_uses_the_unadjusted_geometric_mean(result: BenchmarkResult) -> None:
    run = build(result).runs[0]
    assert run.power_geomean == 1.9  # 3600 / 1921.9 = 1.873 s, reported to 0.1
    assert run.throughput_mean == 2.9  # mean of the 44 throughput query intervals


def test_empty_chart_is_empty() -> None:
    assert render_svg(COLUMNS, {}, {}, None, None) == ""


def test_html_is_self_contained(result: BenchmarkResult) -> None:
    html = render(result, "html")
    lowered = html.lower()
    for needle in ("<script", "<link", "src=", "href=", "url(", "@import", "http://", "https://"):
        assert needle not in lowered, f"the HTML report contains {needle!r}"
    assert "<svg" in html and "<style>" in html and "@media print" in html
