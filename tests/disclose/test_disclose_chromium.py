"""The disclosure package in a real headless Chromium, opened from file:// with the network
refused: every page renders with no console error, asks for nothing but itself, and does not
overflow sideways at 1280 px."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_disclose import CHROMIUM, _require_chromium

from dbbench.reports.disclose.pdf import CHROMIUM_FLAGS

pytestmark = pytest.mark.chromium
PAGES = ("executive-summary.html", "fdr.html", "checklist.html")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        yield b
        b.close()


@pytest.mark.parametrize("name", PAGES)
def test_a_page_of_the_package_renders_offline_without_errors_or_overflow(
    browser: Any, package: Path, name: str
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "assert") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    own = (package / name).resolve().as_uri()
    page.on("request", lambda r: requests.append(r.url) if r.url != own else None)
    page.goto(own, wait_until="load")
    width = page.evaluate("document.documentElement.scrollWidth")
    heading = page.evaluate("document.querySelector('h1').textContent")
    page.close()
    assert errors == []
    assert requests == []
    assert width <= 1280, f"{name} is {width} px wide"
    assert heading
