"""A private PostgreSQL server a test starts itself, under a temp dir on a free loopback
port (never the shared one): for tests that kill or restart a server, and for those whose
measurement counts the whole server (HammerDB's PostgreSQL TPM sums every database's
transactions, which another test's dropped database takes out of the sum). Imported as
``private_postgres`` (``tests/`` is on ``sys.path``)."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(args: list[str]) -> list[str]:
    """PostgreSQL's tools refuse root: as its own user when the tests run as root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@dataclass
class Server:
    """A private server: its URL (database ``postgres``), data folder, start command and
    lock files."""

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


@contextmanager
def private_postgres() -> Iterator[Server]:
    """A private PostgreSQL started by ``pg_ctl`` (detached, in a session of its own, so its
    process group is the server and nothing of the test's is in it); stopped immediately
    afterwards, its folder removed. Skips where no server binaries are installed."""
    bindir = Path("/usr/lib/postgresql")
    found = sorted(bindir.glob("*/bin/pg_ctl"))
    if not found:
        pytest.skip("no PostgreSQL server binaries to start a private one")
    pg_ctl = found[-1]
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-private-pg-"))
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    data, port = tmp / "data", free_port()
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
