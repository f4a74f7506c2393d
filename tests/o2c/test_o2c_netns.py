"""A driver host in a network namespace of the test's own: ``dbbench o2c agent`` in a fresh
namespace, joined to the host by a veth pair with two addresses of a /30 the test makes up
(nothing is routed beyond the pair), drives half the users of a PostgreSQL run. The
database is reached by both sides at the host end of the pair, through a forwarder the test
runs there to the server on 127.0.0.1. Skipped, with the reason, when the test is not root,
``ip`` is missing or the kernel refuses a namespace; the namespace and its veth pair are
deleted at the end (checked)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from o2c_helpers import agent_process, prepare_users

from dbbench.drivers.o2c.agents import TOKEN_ENV
from dbbench.reports.o2c.model import O2CResult

TOKEN = "netns-o2c-token"


@dataclass(frozen=True)
class Namespace:
    name: str
    host_ip: str  # the host's end of the veth pair
    ns_ip: str  # the namespace's end


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=False)


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _ip("netns", "list").stdout.splitlines() if line]


@contextlib.contextmanager
def _namespace() -> Iterator[Namespace]:
    """A fresh namespace joined to the host by a veth pair on a made-up /30 of 10.254/16;
    deleted (with the pair) at the end."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root (ip netns add)")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2) to make a network namespace")
    tag = secrets.token_hex(3)
    name, host_if, ns_if = f"dbbench-o2c-{tag}", f"dbo2c{tag}h", f"dbo2c{tag}n"
    net = secrets.randbelow(256)
    sub = 4 * secrets.randbelow(64)
    host_ip, ns_ip = f"10.254.{net}.{sub + 1}", f"10.254.{net}.{sub + 2}"
    made = _ip("netns", "add", name)
    if made.returncode != 0:
        pytest.skip(f"the kernel refused a network namespace: {made.stderr.strip()}")
    try:
        for args in (
            ("link", "add", host_if, "type", "veth", "peer", "name", ns_if),
            ("link", "set", ns_if, "netns", name),
            ("addr", "add", f"{host_ip}/30", "dev", host_if),
            ("link", "set", host_if, "up"),
            ("netns", "exec", name, "ip", "addr", "add", f"{ns_ip}/30", "dev", ns_if),
            ("netns", "exec", name, "ip", "link", "set", ns_if, "up"),
            ("netns", "exec", name, "ip", "link", "set", "lo", "up"),
        ):
            done = _ip(*args)
            assert done.returncode == 0, f"ip {' '.join(args)}: {done.stderr}"
        yield Namespace(name, host_ip, ns_ip)
    finally:
        _ip("netns", "del", name)  # its end of the pair goes with it, and so the pair
        _ip("link", "del", host_if)  # already gone unless the namespace was not made


@contextlib.contextmanager
def _forwarder(listen: str, target: tuple[str, int]) -> Iterator[int]:
    """A TCP forwarder on ``listen`` (its port yielded) to ``target``: each connection
    pumped both ways by two threads; closed at the end."""
    server = socket.create_server((listen, 0))
    server.settimeout(0.2)
    stop = threading.Event()
    open_socks: list[socket.socket] = []

    def pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def accept() -> None:
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(target)
            open_socks.extend((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=pump, args=(a, b), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        server.close()
        for sock in open_socks:
            with contextlib.suppress(OSError):
                sock.close()


def _env(token: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.pop(TOKEN_ENV, None)
    if token is not None:
        env[TOKEN_ENV] = token
    return env


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_an_agent_in_a_network_namespace_drives_half_the_users(
    tpch_url: str, tmp_path: Path
) -> None:
    prepare_users(tpch_url, 8)
    parts = urlsplit(tpch_url)
    out = tmp_path / "run.json"
    with _namespace() as ns:
        agent_url = f"o2c://{ns.ns_ip}:7400"
        with _forwarder(ns.host_ip, (parts.hostname or "", parts.port or 5432)) as port:
            url = urlunsplit(parts._replace(netloc=f"{parts.username}@{ns.host_ip}:{port}"))
            log = tmp_path / "agent.log"
            cmd = ["ip", "netns", "exec", ns.name, sys.executable, "-m", "dbbench", "o2c",
                   "agent", "--listen", f"{ns.ns_ip}:7400", "--token", TOKEN]  # fmt: skip
            with agent_process(cmd, log, _env(None)):
                run = [sys.executable, "-m", "dbbench", "o2c", "run", "-e", url, "-u", "8",
                       "--think", "0.3", "--steady", "3", "-w", "2", "--progress", "600",
                       "--driver-agent", agent_url, "-o", str(out)]  # fmt: skip
                done = subprocess.run(run, env=_env(TOKEN), capture_output=True, text=True,
                                      timeout=240)  # fmt: skip
                assert done.returncode == 0, done.stderr + log.read_text()
    assert ns.name not in _namespaces()  # the namespace (and so its veth pair) is gone
    assert _ip("link", "show", f"dbo2c{ns.name[-6:]}h").returncode != 0
    (probe,) = O2CResult.read(out).probes
    assert probe.driver_processes == 2 and probe.status == "complete", probe.errors
    assert set(probe.steps.user) == set(range(8))  # both halves: the agent's i % 2 == 1
    (described,) = probe.driver_agents
    assert described.startswith(f"{ns.ns_ip}:7400: driver process 2")
