"""A real HammerDB for the tests: ``$DBBENCH_HAMMERDB``, else the shared test install
(``../shared/tools/hammerdb`` beside the repository, whose adapters go on ``TCLLIBPATH``).

Without one the tests that need it are skipped with the reason, unless
``DBBENCH_REQUIRE_SERVERS=1`` (set by ``.ci/run``, which installs HammerDB's Tcl packages)
turns the skip into a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from private_postgres import private_postgres

from dbbench.drivers.hammerdb.install import HammerDBInstall, find_hammerdb

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "tools" / "hammerdb"


def _require() -> bool:
    return os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def hammerdb_dir() -> Iterator[Path]:
    """The HammerDB directory, with ``DBBENCH_HAMMERDB`` and ``TCLLIBPATH`` set for it."""
    saved = {k: os.environ.get(k) for k in ("DBBENCH_HAMMERDB", "TCLLIBPATH")}
    root = Path(os.environ.get("DBBENCH_HAMMERDB") or SHARED / "hammerdb-4.12")
    adapters = SHARED / "adapters"
    if adapters.is_dir() and "TCLLIBPATH" not in os.environ:
        os.environ["TCLLIBPATH"] = str(adapters)
    os.environ["DBBENCH_HAMMERDB"] = str(root)
    install: HammerDBInstall = find_hammerdb(root)
    try:
        if not install.usable:
            message = install.describe()
            if _require():
                pytest.fail(f"{message} and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
            pytest.skip(message)
        yield root
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="module")
def private_pg_url() -> Iterator[str]:
    """A PostgreSQL server of the module's own, for the HammerDB runs: HammerDB's TPM on
    PostgreSQL sums the transactions of every database of the server, and another test's
    database dropped meanwhile on the shared server took its counts out of the sum (seen:
    240 NOPM from -77970 TPM, on 4 workers)."""
    with private_postgres() as server:
        yield server.url
