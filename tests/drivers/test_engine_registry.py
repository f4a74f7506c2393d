"""Finding engines: built-ins, entry points, missing drivers, bad URLs, servers that are not
there. Every failure is one line, with the install command where one helps, and no password.
"""

from __future__ import annotations

import importlib
import json
import socket
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.drivers import registry
from dbbench.drivers.engine import (
    ABILITIES,
    EngineSpec,
    GeneratesData,
    ServerIdentity,
    engine_abilities,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import available_engines, builtin_engines, declared_spec, open_engine

PASSWORD = "hunter2-secret"


def _closed_port() -> int:
    """A port nothing listens on: bind, note it, close."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _one_line_without_password(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text
    assert PASSWORD not in text
    return text


def test_missing_driver_prints_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = EngineSpec(
        name="fakedb",
        url_form="fakedb://host/db",
        requires=("dbbench_no_such_driver_module",),
        install="pip install 'dbbench[fakedb]'",
        module="dbbench.drivers.engines.fakedb",
    )
    engines = {**builtin_engines(), "fakedb": spec}
    monkeypatch.setattr(registry, "builtin_engines", lambda: engines)
    with pytest.raises(DriversError) as info:
        open_engine(f"fakedb://user:{PASSWORD}@host/db")
    text = _one_line_without_password(info.value)
    assert "pip install 'dbbench[fakedb]'" in text
    assert "dbbench_no_such_driver_module" in text
    listed = {e.name: e for e in available_engines()}
    assert listed["fakedb"].installed is False
    assert listed["duckdb"].installed is True


def test_every_engine_module_declares_itself() -> None:
    """The declaration read from the source (without importing) is the module's ENGINE."""
    engines = builtin_engines()
    assert list(engines) == [
        *("duckdb", "chdb", "datafusion", "hyper", "mysql", "polars", "postgresql", "sail"),
        *("spark", "sqlite", "sqlalchemy"),
    ]
    for name, spec in engines.items():
        module = importlib.import_module(spec.module)
        assert replace(module.ENGINE, module=spec.module) == spec, name
        assert callable(module.connect)
    assert declared_spec("dbbench.drivers.engines.common") is None  # shared code, no engine
    assert declared_spec("dbbench.drivers.engines.inprocess") is None


def test_an_engine_declaration_must_be_literal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dbbench_odd_engine.py").write_text(
        "from dbbench.drivers.engine import EngineSpec\n"
        "NAME = 'odd'\n"
        "ENGINE = EngineSpec(name=NAME, url_form='odd://', requires=(), install='-')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DriversError, match=r"EngineSpec\(name=\.\.\.\) must be a literal"):
        declared_spec("dbbench_odd_engine")


def test_sqlalchemy_dialect_without_its_dbapi() -> None:
    pytest.importorskip("sqlalchemy")
    if "pyodbc" in sys.modules or _importable("pyodbc"):
        pytest.skip("pyodbc is installed here")
    with pytest.raises(DriversError) as info:
        open_engine(f"mssql+pyodbc://sa:{PASSWORD}@host/db")
    assert "pip install pyodbc" in _one_line_without_password(info.value)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_unknown_dialect() -> None:
    with pytest.raises(DriversError) as info:
        open_engine(f"nosuchdb://u:{PASSWORD}@host/db")
    assert "nosuchdb" in _one_line_without_password(info.value)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "mysql+pymysql", "mariadb"])
def test_unreachable_server_is_one_line(scheme: str) -> None:
    port = _closed_port()
    with pytest.raises(DriversError) as info:
        open_engine(f"{scheme}://user:{PASSWORD}@127.0.0.1:{port}/db?connect_timeout=5")
    text = _one_line_without_password(info.value)
    assert str(port) in text
    assert "***" in text


def test_duckdb_in_a_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(DriversError, match="no such directory"):
        open_engine(f"duckdb:///{tmp_path}/absent/x.db")


def test_keyword_options_reach_the_engine(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path}/x.db?threads=3", threads=1)
    try:
        assert engine.settings()["threads"] == "1"
    finally:
        engine.close()


def test_third_party_engine_through_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package installed with a ``dbbench.engines`` entry point is found and used."""
    dist = tmp_path / "dbbench_fake_engine-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: dbbench-fake-engine\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text("[dbbench.engines]\nfakeduck = fakeduck_engine\n")
    (tmp_path / "fakeduck_engine.py").write_text(
        "from dbbench.drivers.engines.duckdb import DuckDBEngine\n"
        "from dataclasses import replace\n"
        "def connect(url):\n"
        "    return DuckDBEngine(replace(url, scheme='duckdb', database=':memory:'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert any(e.name == "fakeduck" for e in available_engines())
    engine = open_engine("fakeduck://anything")
    try:
        assert engine.session().query("SELECT 41 + 1").rows == [(42,)]
    finally:
        engine.close()


def test_an_engine_without_its_driver_is_described_from_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The module cannot even be imported (its driver is missing), yet ``dbbench engines``
    shows its URL form and install command, and opening it says what to install."""
    dist = tmp_path / "dbbench_ghost-2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: dbbench-ghost\nVersion: 2.0\n")
    (dist / "entry_points.txt").write_text("[dbbench.engines]\nghost = ghost_engine\n")
    (tmp_path / "ghost_engine.py").write_text(
        "import dbbench_no_such_ghost_driver\n"
        "from dbbench.drivers.engine import EngineSpec\n"
        "ENGINE = EngineSpec(\n"
        "    name='ghost', url_form='ghost://host/db',\n"
        "    requires=('dbbench_no_such_ghost_driver',), install='pip install dbbench-ghost[db]',\n"
        ")\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    listed = {e.name: e for e in available_engines()}
    assert listed["ghost"].url_form == "ghost://host/db"
    assert listed["ghost"].installed is False
    with pytest.raises(DriversError) as info:
        open_engine(f"ghost://u:{PASSWORD}@host/db")
    text = _one_line_without_password(info.value)
    assert "'dbbench_no_such_ghost_driver'" in text and "pip install dbbench-ghost[db]" in text


def test_engines_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) >= {"duckdb", "postgresql", "mysql", "sqlite", "sqlalchemy"}
    assert rows["postgresql"]["install"] == "pip install 'dbbench[postgresql]'"
    assert rows["duckdb"]["installed"] is True


def test_engines_json_lists_each_engines_declared_abilities(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["engines", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    for name, row in rows.items():
        if not row["installed"]:
            assert row["abilities"] is None, name
            continue
        assert set(row["abilities"]) <= set(ABILITIES), name  # only declared names
        assert row["abilities"] == [a for a in ABILITIES if a in row["abilities"]]  # in order
    manual = (Path(__file__).parents[2] / "docs" / "engines.md").read_text(encoding="utf-8")
    for name, doc in ABILITIES.items():  # each ability says what it means, in one line
        assert doc and "\n" not in doc and len(doc) < 100, name
        assert f"| `{name}` | {doc} |" in manual, name  # and the manual says the same
    # the list is what the engine class declares, and the engine does what it says
    engine = open_engine(f"duckdb:///{tmp_path / 'a.duckdb'}")
    try:
        assert rows["duckdb"]["abilities"] == engine_abilities(type(engine))
        assert {"cancel", "storage_size", "transactions"} <= set(rows["duckdb"]["abilities"])
        engine.create_schema()
        assert isinstance(engine.storage_bytes(), int)
        assert not isinstance(engine, ServerIdentity | GeneratesData)
        assert "server_identity" not in rows["duckdb"]["abilities"]
    finally:
        engine.close()
    if rows["postgresql"]["installed"]:
        assert {"server_identity", "free_connections"} <= set(rows["postgresql"]["abilities"])
    if rows["spark"]["installed"]:
        assert "generates_data" in rows["spark"]["abilities"]
        assert "transactions" not in rows["spark"]["abilities"]


def test_engines_command_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    assert "postgresql" in out and "dbbench[postgresql]" in out


@pytest.mark.mariadb
def test_refused_login_is_one_line_without_password(mariadb_base_url: str) -> None:
    url = mariadb_base_url.replace("root@", f"root:{PASSWORD}@")
    with pytest.raises(DriversError) as info:
        open_engine(url)
    assert "denied" in _one_line_without_password(info.value).lower()
