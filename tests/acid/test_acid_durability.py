"""Durability (3.5) on a private PostgreSQL server the test starts under a temp dir on a
loopback port: ``dbbench acid --kill/--restart`` kills its whole process group with SIGKILL
while each stream has one ACID Transaction in flight, starts it again (crash recovery), and
finds every committed transaction of the success file in HISTORY and none of those in
flight. Never the shared server."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from dbbench.drivers.acid.workload import run_acid
from dbbench.reports.acid.render import render

SF = 0.01


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(args: list[str]) -> list[str]:
    """PostgreSQL's tools refuse root: as its own user when the tests run as root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@dataclass
class Server:
    url: str
    data: Path
    start: list[str]  # pg_ctl start
    locks: list[Path]  # the lock files that name the postmaster's PID

    def restart(self) -> str:
        """The restart command: the lock files removed, then ``pg_ctl start``. A killed
        postmaster whose parent (pg_ctl) is gone is reaped by the machine's init; in a
        container without one it stays a zombie, whose PID still "runs" for PostgreSQL's
        stale-lock check, so the files a real restart finds stale are removed first."""
        script = f"rm -f {shlex.join(map(str, self.locks))} && exec {shlex.join(self.start)}"
        return shlex.join(["sh", "-c", script])

    def pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])


@pytest.fixture()
def server() -> Iterator[Server]:
    """A private PostgreSQL started by ``pg_ctl`` (detached, in a session of its own, so its
    process group is the server and nothing of the test's is in it); stopped immediately
    afterwards, its folder removed."""
    bindir = Path("/usr/lib/postgresql")
    found = sorted(bindir.glob("*/bin/pg_ctl"))
    if not found:
        pytest.skip("no PostgreSQL server binaries to start a private one")
    pg_ctl = found[-1]
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-acid-pg-"))
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    data, port = tmp / "data", _free_port()
    subprocess.run(
        _as_postgres([str(pg_ctl.with_name("initdb")), "-D", str(data), "-A", "trust",
                      "-U", "postgres"]),
        check=True, capture_output=True, cwd=tmp,
    )  # fmt: skip
    options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={tmp}"
    start = _as_postgres(
        [str(pg_ctl), "-D", str(data), "-w", "-l", str(tmp / "log"), "-o", options, "start"]
    )
    try:
        subprocess.run(start, check=True, capture_output=True, cwd=tmp)
        locks = [data / "postmaster.pid", tmp / f".s.PGSQL.{port}.lock"]
        yield Server(f"postgresql://postgres@127.0.0.1:{port}/postgres", data, start, locks)
    finally:
        stop = _as_postgres([str(pg_ctl), "-D", str(data), "-m", "immediate", "stop"])
        subprocess.run(stop, capture_output=True, check=False, cwd=tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def _started(url: str) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()
    assert row is not None
    return float(row[0])


def test_postgresql_killed_mid_transaction_keeps_what_committed(
    server: Server, tmp_path: Path
) -> None:
    first = _started(server.url)
    kill = shlex.join(["kill", "-KILL", "--", f"-{server.pid()}"])
    result = run_acid(
        server.url, SF, tmp_path / "run", streams=1, per_stream=10,
        kill=kill, restart=server.restart(),
    )  # fmt: skip
    failed = [(c.name, c.message) for c in result.checks if c.verdict != "passed"]
    assert not failed, failed
    durability = next(c for c in result.checks if c.name == "durability")
    assert durability.observed["lost_commits"] == "0"
    assert durability.observed["success_records"] == "20"  # S + 1 = 2 streams x 10
    # the two in flight were never committed: no HISTORY row without its record
    assert durability.observed["history_rows_without_record"] == "0"
    assert _started(server.url) > first  # the server really went down and came back
    assert result.verdict == "passed"
    assert "system crash (process or server killed)" in result.failures_exercised
    text = render(result, "text")
    assert "ACID: passed" in text and "durability" in text
    with psycopg.connect(server.url, autocommit=True) as conn:  # HISTORY dropped at the end
        assert conn.execute("SELECT to_regclass('history')").fetchone() == (None,)
