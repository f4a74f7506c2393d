"""Database servers of a benchmark's own: started in a temporary directory on a free
loopback port, stopped (or killed, to inject a fault) by whoever started them.

Never the shared servers: a private PostgreSQL (``initdb`` + ``postgres``, run as the
``postgres`` user when started as root, since PostgreSQL refuses root) and a private
MariaDB (``mariadb-install-db`` + ``mariadbd``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}: {log.read_text()[-500:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


@dataclass
class PrivateServer:
    url: str
    command: list[str]
    port: int
    log: Path
    user: str | None = None  # run as this user (PostgreSQL refuses root)
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start (or, after :meth:`kill`, restart on the same data) and wait for the port."""
        with open(self.log, "ab") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                self.command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                user=self.user, group=self.user, extra_groups=[] if self.user else None,
            )  # fmt: skip
        _wait_port(self.port, self.proc, self.log)
        time.sleep(0.5)  # accepting TCP a moment before it accepts logins

    def kill(self) -> None:
        """kill -9, as a crashed or lost server."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc = None


def _postgres_user() -> str | None:
    return "postgres" if os.geteuid() == 0 else None


@contextlib.contextmanager
def private_postgres() -> Iterator[PrivateServer]:
    """A throw-away PostgreSQL; URL of its ``postgres`` database (trust auth)."""
    bindir = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-pg-"))
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    data, log, port = tmp / "data", tmp / "server.log", free_port()
    user = _postgres_user()
    subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True, capture_output=True, user=user, group=user,
        extra_groups=[] if user else None, cwd=tmp,
    )  # fmt: skip
    command = [
        str(bindir / "postgres"), "-D", str(data), "-p", str(port),
        "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={tmp}",
    ]  # fmt: skip
    server = PrivateServer(
        f"postgresql://postgres@127.0.0.1:{port}/postgres", command, port, log, user
    )
    try:
        server.start()
        yield server
    finally:
        server.kill()
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def private_mariadb() -> Iterator[PrivateServer]:
    """A throw-away MariaDB; URL (root, no password) of its database ``bench``."""
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-maria-"))
    data, log, port = tmp / "data", tmp / "server.log", free_port()
    user = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        ["mariadb-install-db", "--no-defaults", f"--datadir={data}",
         "--auth-root-authentication-method=normal", "--skip-test-db", *user],
        check=True, capture_output=True,
    )  # fmt: skip
    command = [
        "/usr/sbin/mariadbd", "--no-defaults", f"--datadir={data}", f"--port={port}",
        "--bind-address=127.0.0.1", f"--socket={tmp / 'sock'}", f"--pid-file={tmp / 'pid'}",
        "--innodb-buffer-pool-size=256M", "--local-infile=1", *user,
    ]  # fmt: skip
    server = PrivateServer(f"mysql+pymysql://root@127.0.0.1:{port}/bench", command, port, log)
    try:
        server.start()
        subprocess.run(
            ["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "-e", "CREATE DATABASE bench"],
            check=True, capture_output=True,
        )  # fmt: skip
        yield server
    finally:
        server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
