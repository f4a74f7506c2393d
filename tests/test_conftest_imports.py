"""No test module imports a ``conftest``: every test folder has its own ``conftest.py`` and
they share one module name, so which one such an import finds depends on the order the
folders are collected in (``tests/site`` before ``tests/reports`` failed). Shared helpers
live in uniquely named modules (``reports_fixtures``, ``engine_conf``, ...)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
IMPORT = re.compile(r"^\s*(from\s+conftest\s+import|import\s+conftest\b)", re.MULTILINE)


def test_no_test_module_imports_a_conftest() -> None:
    offenders = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "conftest.py" and IMPORT.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"import shared helpers from a uniquely named module: {offenders}"
