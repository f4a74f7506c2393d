"""Driver hosts: ``dbbench o2c agent`` on a second loopback address (127.0.0.2) drives half
the users of a PostgreSQL run for the coordinator; a coordinator without the token is
refused in one line on both sides; the agent's clock offset is measured and reported; an
agent (or its driver process) killed mid-run is named, the steps it streamed are kept and
the run is partial (not valid)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from o2c_helpers import agent_process, prepare_users

from dbbench.cli import main
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c.agents import TOKEN_ENV, AgentHandle, measure_clock, parse_address
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CResult

AGENT_HOST = "127.0.0.2"  # a loopback address of its own (Linux: all of 127/8 is loopback)
TOKEN = "s3cret-o2c-token"


def _env(token: str | None = TOKEN) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.pop(TOKEN_ENV, None)
    if token is not None:
        env[TOKEN_ENV] = token
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((AGENT_HOST, 0))
        return int(s.getsockname()[1])


@contextmanager
def _agent(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An agent listening on 127.0.0.2 (its URL and its log), stopped at the end."""
    with _agent_process(tmp_path) as (url, log, _):
        yield url, log


@contextmanager
def _agent_process(tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[str]]]:
    port = _free_port()
    log = tmp_path / f"agent-{port}.log"
    cmd = [sys.executable, "-m", "dbbench", "o2c", "agent", "--listen", f"{AGENT_HOST}:{port}",
           "--token", TOKEN]  # fmt: skip
    env = {**_env(None), "TMPDIR": str(tmp_path)}  # its journal folder under the test's
    with agent_process(cmd, log, env) as proc:
        yield f"o2c://{AGENT_HOST}:{port}", log, proc


def test_addresses_are_checked() -> None:
    assert parse_address("o2c://127.0.0.2:7400") == ("127.0.0.2", 7400)
    with pytest.raises(DriversError, match="expected o2c://HOST:PORT"):
        parse_address("127.0.0.2")


def test_a_wrong_token_is_refused_and_the_clock_is_measured(tmp_path: Path) -> None:
    with _agent(tmp_path) as (url, log):
        with pytest.raises(DriversError) as refused:
            AgentHandle(url, b"not-the-token", 1, None, None, None)
        assert str(refused.value).startswith(f"driver agent {url[6:]} refused the token")
        assert "\n" not in str(refused.value)
        deadline = time.monotonic() + 10
        while "wrong token" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "refused a coordinator: wrong token" in log.read_text()
        agent = AgentHandle(url, TOKEN.encode(), 1, None, None, None)  # it goes on listening
        try:
            assert abs(agent.offset) < 0.05 and 0 < agent.round_trip < 1.0  # one host's clock
            offset, trip = measure_clock(agent.conn, rounds=3)
            assert abs(offset - agent.offset) < max(trip, agent.round_trip) + 0.01
            assert "clock offset" in agent.describe()
        finally:
            agent.kill()


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_an_agent_on_a_second_loopback_address_drives_half_the_users(
    tpch_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_users(tpch_url, 12)
    out = tmp_path / "run.json"
    with _agent(tmp_path) as (url, log):
        args = [sys.executable, "-m", "dbbench", "o2c", "run", "-e", tpch_url, "-u", "12",
                "--think", "0.3", "--steady", "4", "-w", "4", "--progress", "600",
                "--driver-agent", url, "-o", str(out)]  # fmt: skip
        refused = subprocess.run(args, env=_env("wrong"), capture_output=True, text=True)
        assert refused.returncode != 0
        lines = [ln for ln in refused.stderr.splitlines() if "refused the token" in ln]
        assert len(lines) == 1, refused.stderr
        done = subprocess.run(args, env=_env(), capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr + log.read_text()
    (probe,) = O2CResult.read(out).probes
    assert probe.driver_processes == 2 and probe.status == "complete"
    assert probe.logged_on == 12 and set(probe.steps.user) == set(range(12))
    (agent,) = probe.driver_agents
    assert agent.startswith(url[6:]) and "driver process 2" in agent and "clock offset" in agent
    odd = [u for u in probe.steps.user if u % 2]  # the agent's half: users i % 2 == 1
    assert len(odd) > 0.3 * len(probe.steps.user)
    s = summarize(probe, 1.0)
    assert s.steps > 0 and s.step_mix and not s.reasons, s.reasons
    assert main(["report", str(out)]) == 0  # in-process: only its text is checked
    text = capsys.readouterr().out
    assert "driver agent" in text and "clock offset" in text


def _drivers(pid: int) -> list[psutil.Process]:
    kids = psutil.Process(pid).children()
    return [k for k in kids if "resource_tracker" not in " ".join(k.cmdline())]


def _driving(
    db: str, agent: str, out: Path, log: Path, steady: float
) -> tuple[subprocess.Popen[bytes], Path]:
    """An 8-user run with ``agent`` driving half, once the coordinator's copy of the steps
    the agent streams (returned with the run) holds a few dozen."""
    args = [sys.executable, "-m", "dbbench", "o2c", "run", "-e", db, "-u", "8", "--think",
            "0.2", "--rampup", "1", "--steady", f"{steady:g}", "-w", "2", "--progress", "600",
            "--driver-agent", agent, "-o", str(out)]  # fmt: skip
    run = subprocess.Popen(args, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    received = out.with_name(f"{out.name}.steps.csv.2")  # the coordinator's copy
    deadline = time.monotonic() + 90
    while not (received.is_file() and received.stat().st_size > 1500):
        assert run.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    return run, received


@pytest.mark.postgresql
@pytest.mark.parametrize("victim", ["agent", "its driver process"])
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_a_lost_agent_is_named_and_the_steps_it_sent_are_kept(
    tpch_url: str, tmp_path: Path, victim: str
) -> None:
    prepare_users(tpch_url, 8)
    out = tmp_path / "run.json"
    with _agent_process(tmp_path) as (url, log, agent):
        run, received = _driving(tpch_url, url, out, log, steady=8)
        (driver,) = _drivers(agent.pid)
        (driver if victim == "its driver process" else agent).kill()
        sent = len(received.read_text().splitlines())  # streamed before the kill
        _, err = run.communicate(timeout=120)
        if victim == "agent":  # its driver process ends with it: no load for nobody
            psutil.wait_procs([driver], timeout=10)
            assert not driver.is_running()
    (probe,) = O2CResult.read(out).probes
    assert probe.status == "partial", err
    (lost,) = [e for e in probe.errors if "was lost" in e]
    assert lost.startswith(f"driver process 2 of 2 was lost: agent {url[6:]}: ")
    if victim != "agent":
        assert "its driver process exited with code" in lost
    users = probe.steps.user
    assert sum(1 for u in users if u % 2) >= sent > 0  # every step it sent is kept
    assert any(u % 2 == 0 for u in users)  # and the local half's
    assert "the run is partial" in summarize(probe, 1.0).reasons


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_sigterm_to_the_coordinator_stops_the_agent_and_keeps_its_steps(
    tpch_url: str, tmp_path: Path
) -> None:
    prepare_users(tpch_url, 8)
    out = tmp_path / "run.json"
    with _agent_process(tmp_path) as (url, log, _agent):
        run, _ = _driving(tpch_url, url, out, log, steady=60)
        started = time.monotonic()
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
        assert time.monotonic() - started < 30  # stopped, not the 60-s window
        assert "driver process 2: probe sent" in log.read_text()  # the agent handed it back
    (probe,) = O2CResult.read(out).probes
    assert probe.status == "partial", err
    assert any(e.startswith("interrupted") for e in probe.errors), probe.errors
    assert not [e for e in probe.errors if "was lost" in e], probe.errors
    users = set(probe.steps.user)
    assert users & {1, 3, 5, 7} and users & {0, 2, 4, 6}  # the agent's half and the local
