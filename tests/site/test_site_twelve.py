"""The site with twelve results, in a real Chromium at 1280 px: the index and the per-query
page do not overflow horizontally, the per-query chart's legend names every result in its own
colour (twelve distinct) with no label over another, its query labels do not overlap, and no
console error; results of other substitution parameters are shown with no best named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from synthetic import variant
from test_site_chromium import _open, browser  # noqa: F401  (the module's browser fixture)

from dbbench.reports.site.build import build_site

pytestmark = pytest.mark.chromium

ENGINES = ["duckdb", "postgresql", "sqlite", "datafusion", "polars", "chdb", "hyper", "spark"]


def _overlaps(boxes: list[dict[str, float]]) -> list[tuple[int, int]]:
    out = []
    for i, a in enumerate(boxes):
        for j, b in enumerate(boxes[i + 1 :], i + 1):
            if (
                a["x"] < b["x"] + b["width"]
                and b["x"] < a["x"] + a["width"]
                and a["y"] < b["y"] + b["height"]
                and b["y"] < a["y"] + a["height"]
            ):
                out.append((i, j))
    return out


BOXES = (
    "sel => Array.from(document.querySelectorAll(sel)).map(e => {"
    " const b = e.getBBox(); return {x: b.x, y: b.y, width: b.width, height: b.height}; })"
)


def test_twelve_results_are_readable_at_1280_px(
    browser: Any,  # noqa: F811
    real_run: Path,
    tmp_path: Path,
) -> None:
    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    for n in range(12):
        data = variant(
            base,
            engine=ENGINES[n % len(ENGINES)],
            version=f"{n}.0",
            host=f"host-{n}",
            factor=1.0 + n / 4,
        )
        (inputs / f"r{n}").mkdir(parents=True)
        (inputs / f"r{n}" / "result.json").write_text(json.dumps(data))
    reseeded = variant(base, engine="duckdb", version="99.0", host="host-x", factor=1.0)
    for run in reseeded["runs"]:
        run["seeds"] = {k: v + 1 for k, v in run["seeds"].items()}  # other parameters
    other = tmp_path / "other"
    (other / "r").mkdir(parents=True)
    (other / "r" / "result.json").write_text(json.dumps(reseeded))
    out = tmp_path / "site"
    assert build_site([inputs, other], out).included == 13
    root = out.resolve().as_uri()
    page, _, errors = _open(browser, f"{root}/index.html")
    page.set_viewport_size({"width": 1280, "height": 900})
    width = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(width), "the index overflows 1280 px"
    rows = page.locator("#landscape tbody tr")
    versions = [rows.nth(i).locator("td[data-key=version]").text_content() for i in range(13)]
    odd = rows.nth(versions.index("99.0")).get_attribute("data-id")
    ids = [rows.nth(i).get_attribute("data-id") for i in range(13) if versions[i] != "99.0"]
    first = page.locator("#landscape tbody tr").first.locator("td[data-key=id] a")
    name = first.text_content() or ""
    assert any(name.startswith(e + " ") for e in ENGINES) and " host-" in name  # not a hash
    assert (first.get_attribute("title") or "").startswith("result ")
    assert errors == []
    page.close()
    page, _, errors = _open(browser, f"{root}/queries.html#ids={','.join(map(str, ids))}")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_selector("#per-query-chart")
    assert page.evaluate(width), "the per-query page overflows 1280 px"
    legend = page.evaluate(BOXES, "#per-query-chart text.legend")
    assert len(legend) == 12 and _overlaps(legend) == []
    ticks = page.evaluate(BOXES, "#per-query-chart text:not(.legend)")
    assert _overlaps(ticks) == []
    colours = page.evaluate(
        "() => Array.from(document.querySelectorAll('#per-query-chart rect'))"
        ".filter(r => !r.dataset.query).map(r => r.getAttribute('fill'))"
    )
    assert len(colours) == 12 and len(set(colours)) == 12
    # the heatmap: every measured cell coloured by its ratio to the query's best
    cells = page.evaluate(
        "() => Array.from(document.querySelectorAll('#per-query-table td[data-ratio]'))"
        ".map(td => [Number(td.dataset.ratio), td.className, td.parentElement.dataset.query])"
    )
    bounds = {"r1": (1.0, 1.1), "r2": (1.1, 1.5), "r3": (1.5, 2.0), "r4": (2.0, 4.0)}
    assert len(cells) >= 12 * 22
    for ratio, cls, _ in cells:
        (shade,) = [c for c in cls.split() if c in (*bounds, "r5")]
        low, high = bounds.get(shade, (4.0, float("inf")))
        assert low - 1e-9 <= ratio and (ratio <= high + 1e-9), (ratio, cls)
    assert all(any(r == 1.0 for r, _, q2 in cells if q2 == q) for _, _, q in cells)
    assert page.locator("#heat-legend .swatch").count() == 5
    assert page.locator("#not-comparable").count() == 0
    assert errors == []
    page.close()
    # other substitution parameters: the times side by side, no best named, nothing coloured
    page, _, errors = _open(browser, f"{root}/queries.html#ids={ids[0]},{odd}")
    page.wait_for_selector("#per-query-table")
    note = page.locator("#not-comparable").text_content() or ""
    assert note.startswith("Not comparable: substitution parameters (power-test seeds) differ")
    assert page.locator("#per-query-table td[data-ratio]").count() == 0
    assert page.locator("#per-query-table td[data-value]").count() >= 2 * 22
    assert page.locator("#per-query-chart").count() == 0 and errors == []
    page.close()
