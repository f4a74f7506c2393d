"""Adding an engine takes one module plus one test configuration: the toy engine
(``toy_engine.py`` + ``conf_toy.py``) is found through the ``dbbench.engines`` entry point,
described from its own declaration, and run by the whole shared suite (every test of this
folder with the ``[toy]`` id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import toy_engine
from conf_toy import installed
from engine_conf import CONFS

from dbbench.cli import main
from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import open_engine


def test_the_toy_is_in_the_matrix() -> None:
    """``conftest.py`` parametrizes every shared test over this matrix."""
    assert {"duckdb", "postgresql", "mysql", "sqlite", "sqlalchemy", "toy"} <= set(CONFS)
    assert CONFS["toy"].name == toy_engine.ToyEngine.name


def test_the_toy_is_listed_from_its_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with installed(tmp_path):
        assert main(["engines", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["toy"]["url_form"] == toy_engine.ENGINE.url_form == "toy:///file.db"
    assert rows["toy"]["install"] == "pip install dbbench-toy"
    assert rows["toy"]["module"] == "toy_engine"


def test_the_toy_checks_its_typed_options(tmp_path: Path) -> None:
    with installed(tmp_path), pytest.raises(DriversError) as info:
        open_engine(f"toy:///{tmp_path}/x.db?foreign_keys=perhaps")
    assert str(info.value) == "engine option foreign_keys='perhaps' must be true or false"
