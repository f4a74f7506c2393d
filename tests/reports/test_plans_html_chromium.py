"""The HTML report of a real DuckDB run shows each query's plan in the browser: 22 collapsed
blocks, each opening onto the plan text the run captured (escaped, verbatim)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from reports_cdp import chromium_page
from test_reports_html_chromium import _chromium, _errors

from dbbench.cli import main
from dbbench.reports.model import REPORT_HTML_FILE
from dbbench.reports.tpch.model import PLANS_FILE


@pytest.mark.chromium
def test_the_report_shows_every_plan_in_the_browser(tmp_path: Path) -> None:
    binary = _chromium()
    run_dir = tmp_path / "run"
    args = ["run", "-s", "0.01", "-S", "1", "--runs", "1", "--seed", "3", "-o", str(run_dir)]
    assert main([*args, "--telemetry-interval", "0"]) == 0
    lines = gzip.decompress((run_dir / PLANS_FILE).read_bytes()).decode().splitlines()
    captured = {e["query"]: e["text"] for e in map(json.loads, lines) if e["stream"] == 0}
    url = (run_dir / REPORT_HTML_FILE).resolve().as_uri()
    with chromium_page(binary, tmp_path / "profile") as page:
        for domain in ("Page", "Runtime", "Log"):
            page.call(f"{domain}.enable")
        page.call("Page.navigate", url=url)
        page.wait_for("Page.loadEventFired")
        state = page.evaluate(
            "(() => { const ds = [...document.querySelectorAll('details.plan')];"
            " const closed = ds.filter(d => !d.open).length;"
            " const q9 = document.getElementById('plan-q9'); q9.open = true;"
            " return {n: ds.length, closed: closed,"
            " summaries: ds.map(d => d.querySelector('summary').textContent),"
            " q9: q9.querySelector('pre').textContent,"
            " q9height: q9.querySelector('pre').getBoundingClientRect().height}; })()"
        )
        errors = _errors(page)
    assert state["n"] == 22 and state["closed"] == 22  # collapsed until opened
    assert [s.split()[0].rstrip(":") for s in state["summaries"]] == [f"Q{q}" for q in range(1, 23)]
    assert state["q9"] == captured[9]  # the captured text, shown verbatim
    assert state["q9height"] > 50  # opened: the plan is on the page
    assert errors == []
