"""The cached SF1 DuckDB database, a session fixture for every test package (the query
tests, o2c's validate-after-cleanup); ``tests/conftest.py`` imports it. A test that changes
the database works on a copy. (Engines loaded with small data for the cross-engine checks:
the shared engine matrix, ``tests/engines``.)"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbbench.drivers.engine import STATE_NEXT_UPDATE_SET
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.registry import open_engine
from dbbench.reports.model import kit_version


def _cache_dir() -> Path:
    root = os.environ.get("DBBENCH_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dbbench-tests"
    )
    return Path(root)


def _usable(path: Path) -> bool:
    """A cached SF1 file is reused only when it is complete and no refresh ran on it."""
    if not path.exists():
        return False
    engine = open_engine(f"duckdb:///{path}")
    try:
        check_loaded(engine, 1.0)
        return engine.read_state().get(STATE_NEXT_UPDATE_SET) == "1"
    except DriversError:
        return False
    finally:
        engine.close()


#: What decides the cached database's bytes: the generator, the DDL, the loader and the
#: DuckDB engine (and the engine contract they share). Other driver code (the sequencer, o2c,
#: HammerDB, the other engines) changing does not rebuild it.
_SOURCES = (
    "dbgen",
    "drivers/ddl.py",
    "drivers/loader.py",
    "drivers/engine.py",
    "drivers/engines/common.py",
    "drivers/engines/duckdb.py",
)


def _source_key() -> str:
    """A digest of every source file that decides what the cached database holds.

    Keyed by the code rather than the kit version, so a change to the generator, the DDL or
    the loader rebuilds the database instead of validating against stale data."""
    root = Path(__file__).resolve().parents[1]
    files: list[Path] = []
    for name in _SOURCES:
        where = root / name
        files += sorted(where.rglob("*.py")) if where.is_dir() else [where]
    digest = hashlib.sha1(kit_version().encode())
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def duckdb_sf1_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """SF1 in a DuckDB file of this test process's own, copied from the one built once per
    version of the code under the test cache dir. Test workers (pytest-xdist) and other test
    runs share the cache: the first builds it and the others wait (a lock file), and each
    reads it only under that lock, since DuckDB lets one process open a file for writing and
    no other open it meanwhile."""
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"tpch-sf1-{_source_key()}.duckdb"
    own = tmp_path_factory.mktemp("sf1") / path.name
    with open(cache / "tpch-sf1.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.copyfile(_build(cache, path), own)
    yield own
    own.unlink(missing_ok=True)  # ~300 MB; pytest keeps the last runs' temporary folders


def _build(cache: Path, path: Path) -> Path:
    if _usable(path):
        return path
    building = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    building.unlink(missing_ok=True)
    engine = open_engine(f"duckdb:///{building}")
    try:
        load_database(engine, 1.0)
    finally:
        engine.close()
    os.replace(building, path)
    for stale in cache.glob("tpch-sf1-*.duckdb"):  # databases of older code: ~300 MB each
        if stale != path:
            stale.unlink(missing_ok=True)
    return path
