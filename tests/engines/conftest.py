"""The engine matrix, defined once: every ``conf_*.py`` in this folder is an engine under
test, and every test here that takes ``engine_conf`` (or ``compared_conf``: every engine but
the reference) runs once per engine.

Each engine is loaded with SF 0.01 once per session, on first use, and shared by all the
tests of this folder; tests that change data put it back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from engine_conf import CONFS, EnginePool, EngineTestConf, Loaded


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for argname, confs in (
        ("engine_conf", list(CONFS.values())),
        ("compared_conf", [c for c in CONFS.values() if not c.reference]),
    ):
        if argname in metafunc.fixturenames:
            params = [pytest.param(c, id=c.name, marks=c.marks) for c in confs]
            metafunc.parametrize(argname, params, scope="session")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``@pytest.mark.notyet([engines], reason=...)`` / ``notimpl``: a strict xfail there."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None:
            continue
        conf = callspec.params.get("engine_conf") or callspec.params.get("compared_conf")
        if not isinstance(conf, EngineTestConf):
            continue
        for marker in (*item.iter_markers("notyet"), *item.iter_markers("notimpl")):
            if not marker.kwargs.get("reason"):
                raise pytest.UsageError(f"{item.nodeid}: @{marker.name} needs a reason")
            if conf.name in marker.args[0]:
                reason = f"{marker.name} on {conf.name}: {marker.kwargs['reason']}"
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.fixture(scope="session")
def engine_pool(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EnginePool]:
    pool = EnginePool(request, tmp_path_factory)
    with pool.stack:
        yield pool


@pytest.fixture(scope="session")
def loaded(engine_conf: EngineTestConf, engine_pool: EnginePool) -> Loaded:
    """The engine of this test, loaded with SF 0.01."""
    return engine_pool.get(engine_conf)


@pytest.fixture(scope="session")
def compared(compared_conf: EngineTestConf, engine_pool: EnginePool) -> Loaded:
    """An engine other than the reference, loaded with SF 0.01."""
    return engine_pool.get(compared_conf)


@pytest.fixture(scope="session")
def reference(engine_pool: EnginePool) -> Loaded:
    """The reference engine (DuckDB), loaded with SF 0.01."""
    (conf,) = [c for c in CONFS.values() if c.reference]
    return engine_pool.get(conf)
