"""Durability (3.5) on a private PostgreSQL or MariaDB (InnoDB) server the test starts under
a temp dir on a loopback port: ``dbbench acid --kill/--restart`` kills its whole process
group with SIGKILL while each stream has one ACID Transaction in flight, starts it again
(crash recovery), and finds every committed transaction of the success file in HISTORY and
none of those in flight. Never the shared servers."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pymysql
import pytest
from private_postgres import Server, free_port, private_postgres

from dbbench.drivers.acid.workload import run_acid
from dbbench.reports.acid.render import render

SF = 0.01


@pytest.fixture()
def server() -> Iterator[Server]:
    with private_postgres() as started:
        yield started


def _started(url: str) -> float:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT extract(epoch FROM pg_postmaster_start_time())").fetchone()
    assert row is not None
    return float(row[0])


def _passed_durability(url: str, pid: int, restart: str, out: Path) -> None:
    """``dbbench acid`` with the private server's process group killed by SIGKILL and
    restarted: every test passed, no committed transaction lost, none in flight kept."""
    kill = shlex.join(["kill", "-KILL", "--", f"-{pid}"])
    result = run_acid(url, SF, out, streams=1, per_stream=10, kill=kill, restart=restart)
    failed = [(c.name, c.message) for c in result.checks if c.verdict != "passed"]
    assert not failed, failed
    durability = next(c for c in result.checks if c.name == "durability")
    assert durability.observed["lost_commits"] == "0"
    assert durability.observed["success_records"] == "20"  # S + 1 = 2 streams x 10
    # the two in flight were never committed: no HISTORY row without its record
    assert durability.observed["history_rows_without_record"] == "0"
    assert result.verdict == "passed"
    assert "system crash (process or server killed)" in result.failures_exercised
    text = render(result, "text")
    assert "ACID: passed" in text and "durability" in text


def test_postgresql_killed_mid_transaction_keeps_what_committed(
    server: Server, tmp_path: Path
) -> None:
    first = _started(server.url)
    _passed_durability(server.url, server.pid(), server.restart(), tmp_path / "run")
    assert _started(server.url) > first  # the server really went down and came back
    with psycopg.connect(server.url, autocommit=True) as conn:  # HISTORY dropped at the end
        assert conn.execute("SELECT to_regclass('history')").fetchone() == (None,)


@dataclass
class Maria:
    port: int
    folder: Path
    start: str  # a shell line that starts mariadbd detached, in a session of its own

    @property
    def url(self) -> str:
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/acid"

    def pid(self) -> int:
        return int((self.folder / "pid").read_text().split()[0])

    def restart(self) -> str:
        """Its stale socket lock removed (a killed server that stays a zombie in a
        container without init still "runs" for MariaDB's check), then started again."""
        return shlex.join(["sh", "-c", f"rm -f {self.folder / 'sock.lock'} && {self.start}"])

    def connect(self) -> pymysql.Connection[pymysql.cursors.Cursor]:
        return pymysql.connect(host="127.0.0.1", port=self.port, user="root", autocommit=True)


def _wait_up(maria: Maria, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            maria.connect().close()
            return
        except pymysql.err.OperationalError:
            if time.monotonic() > deadline:
                log = (maria.folder / "log").read_text("utf-8", "replace")[-500:]
                raise AssertionError(f"the private MariaDB did not start: {log}") from None
            time.sleep(0.2)


@pytest.fixture()
def maria() -> Iterator[Maria]:
    """A private MariaDB (InnoDB, its own datadir) started detached in a session of its own
    (its process group is the server alone), on a free loopback port; killed and removed
    afterwards."""
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    install = shutil.which("mariadb-install-db")
    if install is None or not Path(mariadbd).exists():
        pytest.skip("no MariaDB server binaries to start a private one")
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-acid-maria-"))
    user = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        [install, "--no-defaults", f"--datadir={tmp / 'data'}", "--skip-test-db",
         "--auth-root-authentication-method=normal", *user],
        check=True, capture_output=True, cwd=tmp,
    )  # fmt: skip
    port = free_port()
    server = [
        mariadbd, "--no-defaults", f"--datadir={tmp / 'data'}", f"--port={port}",
        "--bind-address=127.0.0.1", f"--socket={tmp / 'sock'}", f"--pid-file={tmp / 'pid'}",
        "--innodb-buffer-pool-size=128M", "--default-storage-engine=InnoDB", *user,
    ]  # fmt: skip
    start = f"setsid {shlex.join(server)} >>{shlex.quote(str(tmp / 'log'))} 2>&1 </dev/null &"
    maria = Maria(port, tmp, start)
    try:
        subprocess.run(["sh", "-c", start], check=True, cwd=tmp)
        _wait_up(maria)
        with maria.connect() as conn, conn.cursor() as cur:
            cur.execute("CREATE DATABASE acid")
        yield maria
    finally:
        with suppress(OSError, ValueError):
            os.killpg(maria.pid(), signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_mariadb_killed_mid_transaction_keeps_what_committed(maria: Maria, tmp_path: Path) -> None:
    first = maria.pid()
    _passed_durability(maria.url, first, maria.restart(), tmp_path / "run")
    assert maria.pid() != first  # the server really went down and came back
    with maria.connect() as conn, conn.cursor() as cur:  # HISTORY dropped, InnoDB tables
        cur.execute(
            "SELECT table_name, engine FROM information_schema.tables WHERE table_schema = 'acid'"
        )
        tables = {str(name).lower(): str(engine) for name, engine in cur.fetchall()}
    assert "history" not in tables
    assert tables["lineitem"] == "InnoDB" and tables["orders"] == "InnoDB", tables
