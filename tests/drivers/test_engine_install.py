"""An engine's install command is stated once: a built-in engine's is the kit's extra named
after it (``pyproject.toml`` declares one per engine), unless its declaration says otherwise;
another package's declaration without one gets that package's own ``pip install``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from dbbench.drivers.engine import EngineSpec
from dbbench.drivers.registry import builtin_engines, declared_spec

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_builtin_engine_installs_through_an_extra_of_the_kit() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    for name, spec in builtin_engines().items():
        if spec.install == "pip install dbbench":
            continue  # the base install (DuckDB)
        assert spec.install == f"pip install 'dbbench[{name}]'", name
        assert name in extras, f"{name}: no extra of that name in pyproject.toml"
    assert builtin_engines()["duckdb"].install == "pip install dbbench"


def test_a_declaration_without_install_names_the_extra_or_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert EngineSpec(name="x", url_form="x://", requires=()).install == (
        "pip install 'dbbench[x]'"
    )
    given = EngineSpec(name="x", url_form="x://", requires=(), install="pip install x-driver")
    assert given.install == "pip install x-driver"
    (tmp_path / "dbbench_plain_engine.py").write_text(
        "from dbbench.drivers.engine import EngineSpec\n"
        "ENGINE = EngineSpec(name='plain', url_form='plain://', requires=())\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = declared_spec("dbbench_plain_engine", install="pip install plain-pkg")
    assert spec is not None and spec.install == "pip install plain-pkg"
    own = declared_spec("dbbench_plain_engine")
    assert own is not None and own.install == "pip install 'dbbench[plain]'"
