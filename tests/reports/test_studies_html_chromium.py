"""The studies' HTML (telemetry and latency sections, suite comparison, scaling study) in a
real headless Chromium: renders, no console errors, no requests, charts drawn."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from reports_cdp import chromium_page
from reports_fixtures import T0, make_result
from test_reports_html_chromium import _INK, _chromium, _errors, _requests

from dbbench.reports.studies.scaling import ScaleIndex, StepRecord, write_scale_reports
from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, write_suite_reports
from dbbench.reports.tpch.model import BenchmarkResult, Telemetry
from dbbench.reports.tpch.render import write_reports


def _with_telemetry(result: BenchmarkResult) -> BenchmarkResult:
    ts = [T0 + 5.0 * i for i in range(1, 401)]
    result.telemetry = Telemetry(
        interval=5.0,
        cores=2,
        t_start=T0,
        t=ts,
        cpu_user=[50 + 40 * math.sin(i / 20) for i in range(400)],
        cpu_system=[5.0] * 400,
        cpu_iowait=[1.0] * 400,
        cpu_per_core=[[60.0, 50.0]] * 400,
        mem_used=[(2 << 30) + i * (1 << 20) for i in range(400)],
        disk_read_bps=[float((i % 7) * 10**6) for i in range(400)],
        disk_write_bps=[float((i % 5) * 10**6) for i in range(400)],
        disk_read_iops=[10.0] * 400,
        disk_write_iops=[20.0] * 400,
        net_sent_bps=[0.0] * 400,
        net_recv_bps=[0.0] * 400,
    )
    return result


def _open(binary: str, html: Path, profile: Path, probe: str) -> tuple[Any, dict[str, Any]]:
    url = html.resolve().as_uri()
    with chromium_page(binary, profile) as page:
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.call(f"{domain}.enable")
        page.call("Page.navigate", url=url)
        page.wait_for("Page.loadEventFired")
        state = page.evaluate(probe)
        shot = page.call("Page.captureScreenshot", format="png")["data"]
        ink = page.evaluate(_INK.replace("SHOT", repr(shot)))
        assert _errors(page) == [], f"console errors: {_errors(page)}"
        assert _requests(page, url) == [], f"the page requested {_requests(page, url)}"
    assert ink["ink"] > 0.01 * ink["total"], f"screenshot looks blank: {ink}"
    return page, state


@pytest.mark.chromium
def test_report_with_telemetry_and_latency(tmp_path: Path) -> None:
    binary = _chromium()
    html = next(
        p
        for p in write_reports(_with_telemetry(make_result()), tmp_path / "r")
        if p.suffix == ".html"
    )
    _, state = _open(
        binary,
        html,
        tmp_path / "profile",
        "({lines: document.querySelectorAll('svg.telemetry path.ts').length,"
        " phases: document.querySelectorAll('svg.telemetry rect.phase').length,"
        " boxes: document.querySelectorAll('svg.boxplot rect.box').length,"
        " intervals: document.querySelectorAll('svg.telemetry rect.q').length,"
        " headline: document.getElementById('telemetry-headline').textContent})",
    )
    assert state["lines"] == 5  # busy, iowait, read, write, memory
    assert state["phases"] == 5  # load, and each run's power and throughput tests
    assert state["boxes"] == 24
    assert state["intervals"] == 2 * (24 + 22 * 2 + 2 * 2)  # each run: power, streams, RFs
    assert state["headline"].startswith("CPU ")


@pytest.mark.chromium
def test_suite_comparison_and_scaling_study(tmp_path: Path) -> None:
    binary = _chromium()
    suite = tmp_path / "suite"
    index = SuiteIndex("suite.toml", "fast")
    for name, result in (("fast", make_result()), ("slow", make_result())):
        for run in result.runs:
            for iv in run.intervals:
                iv.seconds *= 1.0 if name == "fast" else 2.5
        result.write(suite / f"{name}-sf1" / "result.json")
        index.entries.append(EntryRecord(name, "duckdb", 1.0, 1, f"{name}-sf1", "ok"))
    index.entries.append(EntryRecord("down", "postgresql://x", 1.0, 1, "down-sf1", "failed", "no"))
    index.write(suite)
    html = next(p for p in write_suite_reports(suite) if p.suffix == ".html")
    _, state = _open(
        binary,
        html,
        tmp_path / "p1",
        "({bars: document.querySelectorAll('svg.speedup rect.e1').length,"
        " rows: document.querySelectorAll('table')[0].rows.length})",
    )
    assert state["bars"] == 22 and state["rows"] == 4  # Q1-Q22: RF1/RF2 are shown apart
    study = tmp_path / "scale"
    scale = ScaleIndex("duckdb", 1.0, [StepRecord(n, f"streams-{n}", "ok") for n in (1, 2, 4)])
    for n in (1, 2, 4):
        make_result(streams=n).write(study / f"streams-{n}" / "result.json")
    scale.write(study)
    html = next(p for p in write_scale_reports(study) if p.suffix == ".html")
    _, state = _open(
        binary,
        html,
        tmp_path / "p2",
        "({points: document.querySelectorAll('svg.scaling circle').length})",
    )
    assert state["points"] == 3
