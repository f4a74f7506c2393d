"""The mixed tests: each engine's file loads one SF 0.01 database of its own, prepared for
o2c, and shares it between its tests (``mixed_helpers.load_and_prepare``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _in_tmp(tmp_cwd: Path) -> None:
    """A command without ``-o`` writes under the current directory."""
