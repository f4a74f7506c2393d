"""The HTML report in a real headless Chromium: renders, no console errors, no requests,
and a screenshot with actual content on it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from reports_cdp import Page, chromium_page

from dbbench.reports.tpch.costsheet import load_cost_sheet
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.render import write_reports

ROOT = Path(__file__).resolve().parents[2]

# Counts the screenshot's non-white pixels with the browser's own PNG decoder.
_INK = """
new Promise((resolve, reject) => {
  const img = new Image();
  img.onload = () => {
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i+1] < 200 || d[i+2] < 200) ink++;
    resolve({ink: ink, total: d.length / 4});
  };
  img.onerror = () => reject(new Error('screenshot did not decode'));
  img.src = 'data:image/png;base64,' + SHOT;
})
"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no"):
        pytest.fail("chromium is not installed and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
    pytest.skip("chromium is not installed (Debian package: chromium)")


def _errors(page: Page) -> list[str]:
    out = []
    for e in page.events:
        params = e.get("params", {})
        if e["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append(str(params.get("args")))
        elif e["method"] == "Runtime.exceptionThrown":
            out.append(str(params.get("exceptionDetails")))
        elif e["method"] == "Log.entryAdded" and params["entry"].get("level") == "error":
            out.append(str(params["entry"].get("text")))
    return out


def _requests(page: Page, own: str) -> list[str]:
    urls = [
        e["params"]["request"]["url"]
        for e in page.events
        if e["method"] == "Network.requestWillBeSent"
    ]
    return [u for u in urls if u != own and not u.startswith("data:")]


@pytest.mark.chromium
def test_html_report_renders_offline_without_errors(
    result: BenchmarkResult, tmp_path: Path
) -> None:
    binary = _chromium()
    sheet = load_cost_sheet(ROOT / "examples" / "cost-sheets" / "cloud-vm-3y.toml")
    html = next(p for p in write_reports(result, tmp_path / "out", sheet) if p.suffix == ".html")
    url = html.resolve().as_uri()
    with chromium_page(binary, tmp_path / "profile") as page:
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.call(f"{domain}.enable")
        page.call("Page.navigate", url=url)
        page.wait_for("Page.loadEventFired")
        state = page.evaluate(
            "({title: document.title,"
            " bars: document.querySelectorAll('svg.chart rect.pw, svg.chart rect.tp').length,"
            " qphh: document.getElementById('qphh').textContent,"
            " height: document.body.scrollHeight})"
        )
        shot = page.call("Page.captureScreenshot", format="png")["data"]
        ink = page.evaluate(_INK.replace("SHOT", repr(shot)))
        errors, requests = _errors(page), _requests(page, url)
    assert "TPC-H-derived report" in state["title"]
    assert state["bars"] == 2 * 2 * 24, "two runs x 24 columns x (power, throughput) bars"
    assert state["qphh"] == "2,095.9"
    assert state["height"] > 900
    assert errors == [], f"console errors: {errors}"
    assert requests == [], f"the report requested {requests}"
    assert ink["ink"] > 0.01 * ink["total"], f"screenshot looks blank: {ink}"
