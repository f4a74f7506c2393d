"""Hand-built results for the reports tests (no engine, no real run) and the goldens switch.

``pytest tests/reports --update-goldens`` rewrites the golden files (the Markdown report and
docs/result-schema.json) from the current code instead of comparing against them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from reports_fixtures import make_result

from dbbench.reports.tpch.model import BenchmarkResult


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the reports golden files instead of comparing against them",
    )


@pytest.fixture()
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture()
def factory() -> Callable[..., BenchmarkResult]:
    return make_result


@pytest.fixture()
def result() -> BenchmarkResult:
    return make_result()
