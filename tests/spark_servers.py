"""Spark servers of the test's own, started from PySpark's jars on free loopback ports in a
temporary folder and stopped by the test that started them:

* a Spark Connect server (``SparkConnectServer`` in local mode), for ``sc://`` URLs;
* a standalone master without any worker: a cluster that is up but cannot run a task.

Everything binds to 127.0.0.1 (``SPARK_LOCAL_IP``, ``spark.driver.host``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent
LOOPBACK = {"SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_HOSTNAME": "localhost"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def kill(self) -> None:
        """Stop the server and its JVM children at once (SIGKILL to its process group)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)


def _wait_for_port(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"Spark server exited: {server.log.read_text()[-2000:]}")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
            return
        time.sleep(0.5)
    server.kill()
    raise RuntimeError(f"Spark server did not listen within {timeout:.0f} s")


@contextlib.contextmanager
def _serving(cmd: list[str], port: int, folder: Path, timeout: float = 180) -> Iterator[Server]:
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "server.log"
    env = {**os.environ, **LOOPBACK, "SPARK_HOME": str(SPARK_HOME)}
    env["PYSPARK_PYTHON"] = sys.executable  # the Python workers import dbbench
    env["SPARK_LOG_DIR"] = env["SPARK_PID_DIR"] = str(folder)
    with log.open("wb") as out:
        process = subprocess.Popen(
            cmd, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(process, port, log)
    try:
        _wait_for_port(server, timeout)
        yield server
    finally:
        server.kill()


@contextlib.contextmanager
def connect_server(folder: Path, master: str = "local[2]") -> Iterator[Server]:
    """A Spark Connect server on a free loopback port; ``sc://127.0.0.1:<port>``."""
    port = free_port()
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "8",
        "spark.scheduler.mode": "FAIR",
    }
    cmd = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master]
    for key, value in conf.items():
        cmd += ["--conf", f"{key}={value}"]
    cmd += ["--class", "org.apache.spark.sql.connect.service.SparkConnectServer", "spark-internal"]
    with _serving(cmd, port, folder) as server:
        yield server


@contextlib.contextmanager
def master_without_workers(folder: Path) -> Iterator[Server]:
    """A standalone master on a free loopback port that has no worker registered."""
    port = free_port()
    cmd = [
        str(SPARK_HOME / "bin" / "spark-class"),
        "org.apache.spark.deploy.master.Master",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--webui-port",
        str(free_port()),
    ]
    with _serving(cmd, port, folder) as server:
        yield server
