"""HammerDB is a workload of the kit's one protocol: the four verbs on a run scope with the
real HammerDB on a private PostgreSQL database (prepare builds, check probes, run measures,
cleanup releases), the same class ``dbbench hammerdb run`` goes through."""

from __future__ import annotations

from pathlib import Path

import pytest
from hammerdb_helpers import drop_role
from private_databases import fresh_postgres

from dbbench.drivers.hammerdb.flow import HammerDBWorkload, Plan, connect
from dbbench.drivers.hammerdb.install import find_hammerdb
from dbbench.drivers.hammerdb.script import TproccOptions
from dbbench.drivers.lifecycle import Workload, open_run
from dbbench.drivers.url import parse_url
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.model.hostnoise import recorded

pytestmark = [pytest.mark.hammerdb, pytest.mark.postgresql, pytest.mark.timeout(600)]


def test_hammerdb_through_the_workload_protocol(
    hammerdb_dir: Path, private_pg_url: str, tmp_path: Path
) -> None:
    install = find_hammerdb(hammerdb_dir)
    options = TproccOptions(virtual_users=2, duration_minutes=0.2)
    out = tmp_path / "run"
    role = ""
    try:
        with fresh_postgres(private_pg_url, "dbbench_hdb") as url:
            role = url.rsplit("/", 1)[1]
            conn = connect(parse_url(url))
            workload = HammerDBWorkload(install, conn, Plan("tprocc", options))
            assert isinstance(workload, Workload)
            with open_run([url], out_dir=out) as scope:
                assert workload.check(scope) == []
                assert workload.prepare(scope) is None  # the schema build succeeded
                assert workload.build["ok"] is True
                result = workload.run(scope)
                scope.write(result)
                workload.cleanup(scope)
        assert workload.check(scope)  # the database is dropped: check says so, in one line
    finally:
        if role:
            drop_role(private_pg_url, role)
    assert result.status == "complete" and result.errors == []
    assert result.nopm is not None and result.nopm > 0 and result.build["ok"] is True
    written = HammerDBResult.read(out / RESULT_FILE)
    assert written.nopm == result.nopm
    noise = recorded(written.config)  # the build's and the run's host noise (issue 34)
    assert noise is not None and [p.phase for p in noise.phases] == [
        "HammerDB build",
        "HammerDB run",
    ]
    assert noise.engine == "its local server processes (postgres)"
    assert all(p.engine is not None and p.kit is not None for p in noise.phases)
    assert (out / "build.tcl").is_file() and (out / "run.tcl").is_file()
