"""Sail (``pip install 'dbbench[sail]'``): a Sail server started in this process on a free
loopback port for the session, reached through a plain Spark Connect URL (``sc://``), which
the ``spark`` engine hands to the ``sail`` engine once the server answers as Sail."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_conf import EngineTestConf


class TestConf(EngineTestConf):
    name = "sail"
    # Sail answers count(*) of a range from its statistics: the sum has to run
    slow_query = "SELECT sum(id % 7) FROM range(100000000000)"

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        sail = pytest.importorskip("pysail.spark", reason="Sail needs dbbench[sail]")
        server = sail.SparkConnectServer("127.0.0.1", 0)
        server.start(background=True)
        try:
            host, port = server.listening_address
            yield f"sc://{host}:{port}/{folder}/warehouse"
        finally:
            server.stop()
