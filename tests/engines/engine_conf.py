"""The base of every engine's test configuration (ibis's ``TestConf`` pattern).

An engine under test is one module here, ``conf_<engine>.py``, defining ``class
TestConf(EngineTestConf)``: how to get an empty database of that engine for the session, how
to open it, and the few facts the shared suite needs (a statement that runs long enough to
be cancelled). ``conftest.py`` finds every ``conf_*.py`` and runs the shared suite
(``test_engine_*.py``) on each. Where an engine falls short of a test, the test says so with
``@pytest.mark.notyet([engine], reason=...)`` (the engine cannot) or ``notimpl`` (the kit does
not yet): the test then runs as a strict xfail for that engine, so it fails the day the
engine passes.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from private_databases import fresh_mariadb, fresh_postgres

from dbbench.drivers.engine import Engine
from dbbench.drivers.loader import LoadStats, load_database
from dbbench.drivers.registry import open_engine

#: The scale factor every engine of the matrix is loaded with, once per session.
SF = 0.01


class EngineTestConf:
    #: The engine's registry name (``Engine.name``); also the test id.
    name: ClassVar[str]
    #: Markers of every test run on this engine (e.g. the server it needs).
    marks: ClassVar[tuple[pytest.MarkDecorator, ...]] = ()
    #: A statement that runs far longer than the cancel test waits.
    slow_query: ClassVar[str] = ""
    #: How one connection ends another: the query giving a session's id, and the statement
    #: ending the session of that ``{id}``; ``None`` for an engine running in process.
    kill_connection: ClassVar[tuple[str, str] | None] = None
    #: Whether a second engine object may open the same database in this process.
    can_reopen: ClassVar[bool] = True
    #: The engine every other engine's query answers are compared with.
    reference: ClassVar[bool] = False
    #: The parameter sets of ``test_engine_queries`` this engine runs (all by default)
    parameter_sets: ClassVar[tuple[str, ...]] = ("defaults", "seed101000000")

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        """The URL of an empty database of this engine, kept for the whole session."""
        raise NotImplementedError
        yield ""

    def open(self, url: str) -> Engine:
        return open_engine(url)


class FileTestConf(EngineTestConf):
    """An engine keeping its database in a file: ``url`` names it inside ``{folder}``."""

    url: ClassVar[str]

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        yield self.url.format(folder=folder)


#: The shared servers (tests/conftest.py): the fixture giving a server's URL, and the helper
#: making a private database on it.
SERVERS = {
    "postgresql": ("pg_base_url", fresh_postgres),
    "mariadb": ("mariadb_base_url", fresh_mariadb),
}


class ServerTestConf(EngineTestConf):
    """An engine on one of the shared servers: a private database for the session, dropped
    at the end; its tests carry the server's marker (``-m "not mariadb"``)."""

    server: ClassVar[str]  # a key of SERVERS

    def __init_subclass__(cls) -> None:
        cls.marks = (getattr(pytest.mark, cls.server),)

    @contextmanager
    def database(self, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
        fixture, private_database = SERVERS[self.server]
        with private_database(request.getfixturevalue(fixture)) as url:
            yield self.engine_url(url)

    def engine_url(self, database_url: str) -> str:
        """The URL the engine is given for the private database."""
        return database_url


@dataclass
class Loaded:
    """An engine of the matrix, loaded once per session and shared by the tests."""

    conf: EngineTestConf
    engine: Engine
    url: str
    stats: LoadStats

    @property
    def kind(self) -> str:
        return self.conf.name


def discover() -> dict[str, EngineTestConf]:
    """Every ``conf_*.py`` of this folder: the engine matrix."""
    confs: dict[str, EngineTestConf] = {}
    for path in sorted(Path(__file__).parent.glob("conf_*.py")):
        conf = importlib.import_module(path.stem).TestConf()
        confs[conf.name] = conf
    return confs


CONFS = discover()


class EnginePool:
    """Engines loaded on first use and closed (their databases dropped) at the end."""

    def __init__(self, request: pytest.FixtureRequest, tmp: pytest.TempPathFactory) -> None:
        self.request = request
        self.tmp = tmp
        self.stack = ExitStack()
        self.loaded: dict[str, Loaded] = {}

    def get(self, conf: EngineTestConf) -> Loaded:
        if conf.name not in self.loaded:
            url = self.stack.enter_context(conf.database(self.request, self.tmp.mktemp(conf.name)))
            engine = conf.open(url)
            self.stack.callback(engine.close)
            stats = load_database(engine, SF, jobs=2)
            self.loaded[conf.name] = Loaded(conf, engine, url, stats)
        return self.loaded[conf.name]
