"""The results site in a real headless Chromium, opened from file://: filters, sorting, the
per-query view of three results (the numbers shown are the result files' own), crafted
results that try to run script or fetch, a screenshot of every view."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reports_fixtures import FAMILY_GOLDEN as GOLDEN
from synthetic import variant

from dbbench.reports.site.build import build_site
from dbbench.reports.verify import summaries

pytestmark = pytest.mark.chromium
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
EVIL = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'


def _require() -> None:
    if os.path.exists(CHROMIUM):
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            pass
        else:
            return
    if os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no"):
        pytest.fail("chromium or playwright missing and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
    pytest.skip("needs /usr/bin/chromium (Debian package chromium) and playwright")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _require()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def site(real_run: Path, tmp_path: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    made = {
        "fast": variant(base, engine="duckdb", version="1.4", host="alpha", factor=0.5),
        "mid": variant(base, engine="postgresql", version="17", host="beta", factor=1.0),
        "slow": variant(base, engine="sqlite", version="3.46", host="beta", factor=3.0),
        "big": variant(base, engine="duckdb", version="1.4", host="alpha", factor=1, sf=0.1),
        "evil": variant(base, engine=EVIL, version=EVIL, host=EVIL, factor=2.0),
    }
    for name, data in made.items():
        _write(inputs / name / "result.json", data)
    shutil.copytree(real_run, inputs / "real", ignore=shutil.ignore_patterns("*.duckdb"))
    (inputs / "junk.json").write_text("{not json")
    tampered = variant(base, engine="duckdb", version="1.4", host="alpha", factor=1.0)
    tampered["runs"][0]["intervals"][2]["seconds"] += 9
    _write(inputs / "tampered.json", tampered)
    out = tmp_path / "site"
    outcome = build_site([inputs], out)
    assert outcome.included == 6 and len(outcome.refused) == 1 and len(outcome.failed) == 1
    return out, made


def _open(browser: Any, url: str) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page, requests, errors


def _expected_times(data: dict[str, Any]) -> dict[str, float]:
    from dbbench.reports.tpch.model import BenchmarkResult

    runs = summaries(BenchmarkResult.from_dict(data))
    best = min(runs, key=lambda r: r.qphh or 0.0)
    return {k[1:]: v for k, v in best.power_exact.items() if k.startswith("Q")}


def test_every_view_from_file_url(
    browser: Any, site: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    out, made = site
    root = out.resolve().as_uri()
    shots = tmp_path / "screenshots"
    seen: list[str] = []
    for view in ("index", "queries", "o2c", "hammerdb", "scaling", "history", "excluded"):
        page, requests, errors = _open(browser, f"{root}/{view}.html")
        page.screenshot(path=str(shots / f"{view}.png"), full_page=True)
        assert page.evaluate("window.__pwned") is None
        assert errors == [], errors
        assert all(u.startswith(root + "/") for u in requests), requests
        seen.extend(requests)
        page.close()
    assert (shots / "index.png").stat().st_size > 5000
    # the landscape: 6 rows; filter by SF and machine; sort by QphH
    page, requests, errors = _open(browser, f"{root}/index.html")
    assert page.locator("#landscape tbody tr").count() == 6
    page.select_option("select[name=SF]", "0.1")
    assert page.locator("#landscape tbody tr").count() == 1
    page.select_option("select[name=SF]", "0.01")
    page.select_option("select[name=machine]", "beta")
    assert page.locator("#landscape tbody tr").count() == 2
    page.select_option("select[name=machine]", "")
    page.click("th[data-key=qphh]")  # descending
    engines = page.locator("#landscape tbody td[data-key=engine]").all_text_contents()
    qphh = [
        float(
            page.locator("#landscape tbody td[data-key=qphh]").nth(i).get_attribute("data-value")
            or "nan"
        )
        for i in range(page.locator("#landscape tbody td[data-key=qphh]").count())
    ]
    assert qphh == sorted(qphh, reverse=True), qphh
    assert engines[0] == "duckdb" and engines[-1] == "sqlite", (engines, qphh)
    # pick three results, follow to the per-query view
    for name in ("fast", "mid", "slow"):
        host, engine = made[name]["system"]["hostname"], made[name]["engine"]["name"]
        row = page.locator("#landscape tbody tr", has_text=engine).filter(has_text=host)
        row.locator("input[type=checkbox]").check()
    page.click("#go-queries")
    page.wait_for_selector("#per-query-table")
    page.screenshot(path=str(shots / "per-query.png"), full_page=True)
    headers = page.locator("#per-query-table th[data-id]")
    assert headers.count() == 3
    for i in range(3):
        rid = headers.nth(i).get_attribute("data-id")
        title = headers.nth(i).text_content() or ""
        name = next(n for n in ("fast", "mid", "slow") if made[n]["engine"]["name"] in title)
        expected = _expected_times(made[name])
        for q, seconds in expected.items():
            cell = page.locator(f"#per-query-table tr[data-query='{q}'] td[data-id='{rid}']")
            assert float(cell.get_attribute("data-value") or "nan") == seconds
            shown = cell.text_content() or ""
            assert float(shown.replace(",", "")) == pytest.approx(seconds, rel=1e-3), shown
            assert len(shown.replace(",", "").replace(".", "").lstrip("0")) <= 5  # not raw
            bar = page.locator(f"#per-query-chart rect[data-query='{q}'][data-id='{rid}']")
            assert float(bar.get_attribute("data-seconds") or "nan") == seconds
            assert f": {shown} s" in (bar.locator("title").text_content() or "")
        if name == "fast":  # the best everywhere: ratio 1, the best colour
            cell = page.locator(f"#per-query-table tr[data-query='1'] td[data-id='{rid}']")
            assert float(cell.get_attribute("data-ratio") or 0) == 1.0
            assert "r1" in (cell.get_attribute("class") or "")
            bar = page.locator(f"#per-query-chart rect[data-query='1'][data-id='{rid}']")
            assert float(bar.get_attribute("data-ratio") or 0) == 1.0
    assert page.locator("#per-query-chart rect[data-seconds]").count() == 3 * len(expected)
    # adding a result of another SF is refused
    page.locator("#picker label", has_text="SF 0.1").locator("input").check()
    assert "Refusing to compare" in (page.locator(".refusal").text_content() or "")
    assert page.evaluate("window.__pwned") is None
    assert all(u.startswith(root + "/") for u in requests), requests
    page.close()


def test_crafted_strings_stay_text_and_nothing_is_fetched(
    browser: Any, site: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    out, _ = site
    root = out.resolve().as_uri()
    manifest = json.loads((out / "manifest.json").read_text())
    evil = [e["id"] for e in manifest["results"] if e["source"].startswith("in/evil")]
    assert len(evil) == 1
    pages = ["index.html", "history.html", f"r/{evil[0]}.html", f"r/{evil[0]}.report.html"]
    for name in pages:
        page = browser.new_page()
        requests: list[str] = []
        page.on("request", lambda r, requests=requests: requests.append(r.url))
        page.goto(f"{root}/{name}")
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None, name
        assert page.locator("img").count() == 0, name
        assert all(u.startswith(root + "/") for u in requests), (name, requests)
        if not name.endswith("report.html"):
            assert EVIL in (page.locator("#app").text_content() or "")
        page.screenshot(path=str(tmp_path / f"crafted-{name.replace('/', '-')}.png"))
        page.close()
    excluded = (out / "excluded.html").read_text()
    assert "junk.json" in excluded and "tampered.json" in excluded
    assert "runs[0].intervals[2].seconds" in excluded


def test_landscape_is_paged_and_filters_the_whole_array(
    browser: Any, real_run: Path, tmp_path: Path
) -> None:
    """105 results: 100 rows drawn, the pager shows the rest; a filter counts every row."""
    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    for n in range(105):
        host = "gamma" if n % 7 == 0 else "delta"
        data = variant(base, engine="duckdb", version="1.4", host=host, factor=0.5 + n / 50)
        _write(inputs / f"r{n:03d}.json", data)
    out = tmp_path / "site"
    assert build_site([inputs], out, full_reports=False, workers=2).included == 105
    page, _, errors = _open(browser, (out / "index.html").resolve().as_uri())
    rows = page.locator("#landscape tbody tr")
    assert rows.count() == 100
    assert "rows 1–100 of 105" in (page.locator(".pager").text_content() or "")
    page.click(".pager button >> text=next")
    assert rows.count() == 5
    page.select_option("select[name=machine]", "gamma")
    assert rows.count() == 15 and page.locator("#count").text_content() == "15 of 105 result(s)"
    assert page.locator(".pager").is_hidden()
    assert errors == [], errors
    page.close()


def _study(real_run: Path, root: Path, factors: dict[int, float]) -> dict[int, float]:
    """A scaling study directory (``scale.json`` and a run per step, copies of the real run
    with scaled timings); the throughput-test seconds (Ts) of each step, from the files."""
    from dbbench.reports.tpch.analysis import summarise_run
    from dbbench.reports.tpch.model import BenchmarkResult

    base = json.loads((real_run / "result.json").read_text())
    steps, ts = [], {}
    for streams, factor in factors.items():
        data = variant(base, engine="duckdb", version="1.4", host="alpha", factor=factor)
        _write(root / f"streams-{streams}" / "result.json", data)
        steps.append({"streams": streams, "run_dir": f"streams-{streams}", "status": "ok"})
        result = BenchmarkResult.from_dict(data)
        run = [r for r in result.runs if any(i.phase == "throughput" for i in r.intervals)][-1]
        seconds = summarise_run(run, result.scale_factor).ts_seconds
        assert seconds is not None
        ts[streams] = seconds
    index = {"schema": "dbbench-scale", "schema_version": 1, "engine": "duckdb://",
             "scale_factor": base["scale_factor"], "steps": steps}  # fmt: skip
    _write(root / "scale.json", index)
    return ts


def test_scaling_charts_prices_and_result_pages(
    browser: Any, real_run: Path, tmp_path: Path
) -> None:
    """The scaling page draws each study's relative throughput as the files give it; a suite's
    cost sheet gives $/QphH and the storage ratio; a result's page links its full report and
    draws its query times."""
    from decimal import Decimal

    from dbbench.reports.o2c.metrics import summarize
    from dbbench.reports.o2c.model import O2CResult
    from dbbench.reports.o2c.studies import scaling
    from dbbench.reports.tpch import metrics
    from dbbench.reports.tpch.costsheet import load_cost_sheet
    from dbbench.reports.verify import verify

    inputs = tmp_path / "in"
    ts = _study(real_run, inputs / "study", {1: 1.0, 2: 1.2, 4: 1.6})
    suite = inputs / "suite"
    shutil.copytree(real_run, suite / "duckdb", ignore=shutil.ignore_patterns("*.duckdb"))
    sheet = Path(__file__).resolve().parents[2] / "examples" / "cost-sheets" / "cloud-vm-3y.toml"
    entry = {"name": "duckdb", "engine": "duckdb://", "scale_factor": 0.01, "repetition": 1,
             "run_dir": "duckdb", "status": "ok", "cost_sheet": str(sheet)}  # fmt: skip
    _write(suite / "suite.json", {"schema": "dbbench-suite", "schema_version": 1,
                                  "suite_file": "s.toml", "baseline": "duckdb",
                                  "entries": [entry]})  # fmt: skip
    o2c = json.loads((GOLDEN / "o2c-v2.json").read_text())
    o2c["kind"] = "scale"  # a scaling study: the one probe at 2, 4 and 8 users
    o2c["probes"] = [{**o2c["probes"][0], "users": users} for users in (2, 4, 8)]
    _write(inputs / "o2c-scale.json", o2c)
    out = tmp_path / "site"
    assert build_site([inputs], out).included == 5
    root = out.resolve().as_uri()

    page, requests, errors = _open(browser, f"{root}/scaling.html")
    page.screenshot(path=str(tmp_path / "scaling.png"), full_page=True)
    dots = page.locator("#scaling-chart-0 circle")
    assert dots.count() == 3
    for n in range(3):
        streams = int(dots.nth(n).get_attribute("data-x") or 0)
        expected = (streams * 3600 / ts[streams]) / (3600 / ts[1])
        assert float(dots.nth(n).get_attribute("data-relative") or "nan") == expected
    o2c_result = O2CResult.from_dict(o2c)
    points = scaling([summarize(p, o2c_result.rt_limit) for p in o2c_result.probes])
    dots = page.locator("#scaling-chart-1 circle")
    assert dots.count() == 3
    for n, point in enumerate(points):
        assert int(dots.nth(n).get_attribute("data-x") or 0) == point.users
        assert float(dots.nth(n).get_attribute("data-relative") or "nan") == point.relative
    assert errors == [] and all(u.startswith(root + "/") for u in requests), (errors, requests)
    page.close()

    verdict = verify(suite / "duckdb")
    qphh = verdict.figures["qphh"]
    assert isinstance(qphh, float)
    cost = load_cost_sheet(sheet)
    price = float(metrics.price_performance(cost.total_3y, qphh))
    assert cost.storage_gib is not None
    storage = metrics.storage_ratio(cost.storage_gib, 0.01)
    page, requests, errors = _open(browser, f"{root}/index.html")
    assert verdict.provenance is not None
    row = page.locator(f"#landscape tbody tr[data-id='{verdict.provenance.short_id}']")
    assert float(row.locator("td[data-key=price]").get_attribute("data-value") or "nan") == price
    storage_cell = row.locator("td[data-key=storage]")
    assert float(storage_cell.get_attribute("data-value") or "nan") == storage
    assert storage_cell.text_content() == f"{storage:,.0f}"  # thousands separated
    assert Decimal(str(price)) > 0
    page.close()

    page, requests, errors = _open(browser, f"{root}/r/{verdict.provenance.short_id}.html")
    page.screenshot(path=str(tmp_path / "result.png"), full_page=True)
    links = page.locator("#result-links a")
    assert links.first.text_content() == "full report"
    assert "telemetry" in (page.locator("#result-links").text_content() or "")
    times = _expected_times(json.loads((suite / "duckdb" / "result.json").read_text()))
    for q, seconds in times.items():
        bar = page.locator(f"#per-query-chart rect[data-query='{q}']")
        assert float(bar.get_attribute("data-seconds") or "nan") == seconds
    links.first.click()
    page.wait_for_load_state("load")
    headings = page.locator("h2").all_text_contents()
    assert page.url.endswith(".report.html"), page.url
    assert "Resource use" in headings and any(h.startswith("Latency") for h in headings), headings
    assert errors == [], errors
    page.close()
