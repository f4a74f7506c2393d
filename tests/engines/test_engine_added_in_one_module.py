"""Adding an engine takes one module plus one test configuration: the toy engine
(``toy_engine.py`` + ``conf_toy.py``) is found through the ``dbbench.engines`` entry point,
described from its own declaration, and run by the whole shared suite (every test of this
folder with the ``[toy]`` id). With nothing else it runs the o2c workload (prepare, run,
check, cleanup), its counters are sampled by the telemetry sampler, and ``dbbench
preflight`` applies its own rule: all from the facts its module declares."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_engine
from conf_toy import installed
from engine_conf import CONFS

from dbbench.cli import main
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.telemetry import Sampler, engine_probe
from dbbench.drivers.workload_rows import workload_rows
from dbbench.errors import ExitCode
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CResult


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


# -- full parity: o2c, telemetry, preflight, from the toy's module and conf_toy.py alone ----
FAST = ["--think", "0.05", "--rampup", "0.3", "--progress", "0.5"]


@pytest.fixture(scope="module")
def toy_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A toy database loaded at SF 0.01, the toy installed while the tests use it."""
    folder = tmp_path_factory.mktemp("toy_parity")
    url = f"toy:///{folder / 'toy.db'}"
    with installed(folder):
        engine = open_engine(url)
        try:
            load_database(engine, 0.01, jobs=1)
        finally:
            engine.close()
        yield url


def test_o2c_prepare_run_check_cleanup_on_the_toy(
    toy_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["o2c", "prepare", "-e", toy_url, "--users", "10"]) == 0
    out = tmp_path / "run.json"
    code = main(["o2c", "run", "-e", toy_url, "-u", "5", "--steady", "1.5", *FAST, "-o", str(out)])
    result = O2CResult.read(out)
    summary = summarize(result.probes[0], result.rt_limit)
    assert code == (0 if summary.passed else ExitCode.INVALID_RUN)
    assert result.engine.name == "toy" and summary.errors == 0 and summary.steps > 0
    # the toy's own orders are counted by the TPC-H core through the state key alone
    engine = open_engine(toy_url)
    try:
        added = workload_rows(engine)
        assert added["orders"] > 0 and added["lineitem"] >= 5 * added["orders"]
        check_loaded(engine, 0.01)  # TPC-H's rows are still exactly TPC-H's
    finally:
        engine.close()
    capsys.readouterr()
    assert main(["o2c", "check", "-e", toy_url]) == 0
    assert "every business invariant holds" in capsys.readouterr().out
    assert main(["o2c", "cleanup", "-e", toy_url]) == 0
    assert "restored rows equal their pre-prepare checksums" in capsys.readouterr().out
    engine = open_engine(toy_url)
    try:
        assert workload_rows(engine) == {}  # cleanup cleared the key
    finally:
        engine.close()


def test_telemetry_samples_the_toys_own_counters(toy_url: str) -> None:
    engine = open_engine(toy_url)
    try:
        with Sampler(0.1, probe=engine_probe(engine)) as sampler:
            time.sleep(0.5)
        size = engine.storage_bytes()
    finally:
        engine.close()
    tel = sampler.data
    assert set(tel.engine) == {"toy_file_bytes", "toy_free_pages"}, tel.note
    assert tel.engine["toy_file_bytes"] and tel.engine["toy_file_bytes"][-1] == size


def test_preflight_applies_the_toys_own_rule(
    toy_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["preflight", "-e", toy_url, "-s", "1"]) == 0
    out = capsys.readouterr().out
    # SQLite's default page cache (2000 KiB) against the toy's 1e9 bytes per SF
    assert out == (
        "warning: toy: cache_bytes 2 MiB is smaller than the 954 MiB database (estimated, "
        "SF 1): the toy reads its pages from disk\n"
    )
    # the 12 MiB loaded at SF 0.01 is measured: more than the cache even at SF 0.001
    assert main(["preflight", "-e", toy_url, "-s", "0.001"]) == 0
    assert "2 MiB is smaller than the 12 MiB database (measured, SF 0.001)" in (
        capsys.readouterr().out
    )
    empty = f"toy:///{tmp_path / 'empty.db'}"  # an empty database: 1 MB estimated at SF 0.001
    assert main(["preflight", "-e", empty, "-s", "0.001"]) == 0
    assert capsys.readouterr().out == "toy: no configuration warning for SF 0.001\n"
