"""A MariaDB Galera cluster of the test's own: N nodes on free loopback ports, each a
``mariadbd`` in a temporary directory, started and stopped by the test (never the shared
MariaDB on 3306).

Node 1 bootstraps the cluster (``--wsrep-new-cluster``); the others join it and receive its
state by rsync SST. Started as root, ``wsrep_sst_rsync`` runs its rsync daemon as
``nobody``, so a joiner's (empty) data directory belongs to ``nobody``. Needs Debian's
``galera-4`` and ``rsync`` (``.ci/run`` installs them).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PROVIDER = Path("/usr/lib/galera/libgalera_smm.so")


def missing() -> str | None:
    """Why a cluster cannot start here (None: it can)."""
    for what, ok in (
        ("galera-4 (Debian package)", PROVIDER.is_file()),
        ("mariadbd", Path("/usr/sbin/mariadbd").is_file()),
        ("mariadb-install-db", shutil.which("mariadb-install-db") is not None),
        ("rsync", shutil.which("rsync") is not None),
    ):
        if not ok:
            return f"{what} is not installed"
    return None


def _free_ports(n: int) -> list[int]:
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(int(s.getsockname()[1]))
    for s in socks:
        s.close()
    return ports


@dataclass
class Node:
    number: int
    port: int  # SQL
    gcomm: int
    ist: int
    sst: int
    datadir: Path
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/tpch"

    def kill(self) -> None:
        """kill -9: a node that leaves the cluster without a word."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@dataclass
class Cluster:
    root: Path
    nodes: list[Node] = field(default_factory=list)

    def sql(self, node: Node, statement: str) -> str:
        out = subprocess.run(
            ["mariadb", "-h127.0.0.1", f"-P{node.port}", "-uroot", "-N", "-e", statement],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        if out.returncode != 0:
            raise RuntimeError(f"node {node.number}: {out.stderr.strip()}")
        return out.stdout.strip()

    def size(self, node: Node) -> int:
        row = self.sql(node, "SHOW STATUS LIKE 'wsrep_cluster_size'")
        return int(row.split()[-1]) if row else 0


def _start(node: Node, addresses: str, bootstrap: bool) -> None:
    user = ["--user=root"] if os.geteuid() == 0 else []
    cmd = [
        "/usr/sbin/mariadbd", "--no-defaults", f"--datadir={node.datadir}",
        f"--port={node.port}", "--bind-address=127.0.0.1",
        f"--socket={node.datadir.parent / 'sock'}", f"--pid-file={node.datadir.parent / 'pid'}",
        "--innodb-buffer-pool-size=128M", "--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
        "--default-storage-engine=InnoDB", "--local-infile=1", "--max-connections=200",
        "--wsrep-on=ON", f"--wsrep-provider={PROVIDER}", "--wsrep-cluster-name=dbbench-test",
        f"--wsrep-cluster-address=gcomm://{addresses}",
        f"--wsrep-node-address=127.0.0.1:{node.gcomm}", f"--wsrep-node-name=n{node.number}",
        f"--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:{node.gcomm};"
        f"ist.recv_addr=127.0.0.1:{node.ist}",
        f"--wsrep-sst-receive-address=127.0.0.1:{node.sst}", "--wsrep-sst-method=rsync",
        *user, *(["--wsrep-new-cluster"] if bootstrap else []),
    ]  # fmt: skip
    with open(node.log, "ab") as log:
        node.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


@contextlib.contextmanager
def galera_cluster(n: int = 3, timeout: float = 120.0) -> Iterator[Cluster]:
    """A running cluster of ``n`` nodes, each with an empty database ``tpch``."""
    root = Path(tempfile.mkdtemp(prefix="dbbench-galera-"))
    os.chmod(root, 0o755)
    ports = _free_ports(4 * n)
    cluster = Cluster(root)
    for k in range(n):
        home = root / f"n{k + 1}"
        home.mkdir()
        os.chmod(home, 0o755)
        cluster.nodes.append(
            Node(k + 1, *ports[4 * k : 4 * k + 4], datadir=home / "data", log=home / "log")
        )
    addresses = ",".join(f"127.0.0.1:{node.gcomm}" for node in cluster.nodes)
    try:
        first = cluster.nodes[0]
        user = ["--user=root"] if os.geteuid() == 0 else []
        subprocess.run(
            ["mariadb-install-db", "--no-defaults", f"--datadir={first.datadir}",
             "--auth-root-authentication-method=normal", "--skip-test-db", *user],
            check=True, capture_output=True,
        )  # fmt: skip
        for node in cluster.nodes[1:]:  # empty: filled by SST from node 1
            node.datadir.mkdir(mode=0o700)
            if os.geteuid() == 0:
                shutil.chown(node.datadir, "nobody", "nogroup")
        for k, node in enumerate(cluster.nodes):
            _start(node, addresses, bootstrap=k == 0)
            _wait(cluster, node, k + 1, timeout)
        cluster.sql(first, "CREATE DATABASE tpch")
        yield cluster
    finally:
        for node in cluster.nodes:
            node.kill()
        shutil.rmtree(root, ignore_errors=True)


def _wait(cluster: Cluster, node: Node, size: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert node.proc is not None
        if node.proc.poll() is not None:
            raise RuntimeError(f"node {node.number} exited: {node.log.read_text()[-800:]}")
        with contextlib.suppress(RuntimeError):
            if cluster.size(node) >= size:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"node {node.number} did not join: {node.log.read_text()[-800:]}")
        time.sleep(0.5)
