"""HTML to PDF by a real renderer: headless Chromium's print-to-PDF, driven by Playwright
(the ``pdf`` extra; Chromium is the machine's, e.g. Debian's ``chromium`` package). The
page is opened from ``file://`` with every network request refused, so the PDF shows what
a reader without network sees."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from dbbench.reports.errors import ReportsError

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
)  # fmt: skip
#: where to look for the browser unless ``DBBENCH_CHROMIUM`` names one
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_binary() -> str:
    """The Chromium to print with; a one-line error when there is none."""
    named = os.environ.get("DBBENCH_CHROMIUM", "")
    if named:
        return named
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise ReportsError("writing a PDF needs Chromium (Debian: apt install chromium); "
                       "or use --no-pdf")  # fmt: skip


def html_to_pdf(html_file: Path) -> bytes:
    """The PDF Chromium prints of ``html_file`` (the page's own @page size)."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise ReportsError("writing a PDF needs playwright (pip install 'dbbench[pdf]'); "
                           "or use --no-pdf") from None  # fmt: skip
    binary = chromium_binary()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=binary, args=list(CHROMIUM_FLAGS))
            try:
                page = browser.new_page()
                page.route("**/*", _only_the_file(html_file))
                page.goto(html_file.resolve().as_uri(), wait_until="load")
                data: bytes = page.pdf(prefer_css_page_size=True, print_background=True)
            finally:
                browser.close()
    except Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportsError(f"Chromium could not print {html_file.name}: {first}") from None
    return data


def _only_the_file(html_file: Path) -> Any:
    own = html_file.resolve().as_uri()

    def route(route: Any) -> None:
        if route.request.url == own:
            route.continue_()
        else:
            route.abort()

    return route
