"""The toy engine (``toy_engine.py``), installed the way a third-party package installs one:
a ``dbbench.engines`` entry point in a distribution's metadata on ``sys.path``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import FileTestConf

from dbbench.drivers.engine import Engine
from dbbench.drivers.registry import open_engine


@contextmanager
def installed(folder: Path) -> Iterator[None]:
    """The toy's distribution metadata, on ``sys.path`` while the block runs."""
    dist = folder / "dbbench_toy-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: dbbench-toy\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dbbench.engines]\ntoy = toy_engine\n")
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        importlib.invalidate_caches()


class TestConf(FileTestConf):
    name = "toy"
    url = "toy:///{folder}/toy.db"
    slow_query = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    )

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        self.folder = folder  # the toy's distribution metadata goes here too
        with super().database(request, folder) as url:
            yield url

    def open(self, url: str) -> Engine:
        with installed(self.folder):
            return open_engine(url)
