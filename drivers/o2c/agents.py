"""Driver hosts: ``dbbench o2c agent`` drives a share of a run's users for a coordinator on
another host (or another loopback address), reached by URL (``o2c://HOST:PORT``).

The coordinator (:func:`drivers.o2c.processes.run_processes`) treats an agent as one more
driver process: :class:`AgentHandle` connects, proves the shared token, measures the
agent's clock against its own, hands over the probe's share (users ``i % N == k``, its
work processes) and relays the agent's messages (ready, the probe) into the same inbox as
its local driver processes. The connection is ``multiprocessing.connection`` with the
token as its ``authkey``: an HMAC challenge both ways before anything is unpickled, so a
peer without the token is refused (one line on both sides) and never sends an object.

Clocks: the coordinator asks the agent's time :data:`CLOCK_ROUNDS` times and keeps the
round of the shortest round trip: ``offset = agent time - the round's midpoint``. The
common start is sent on the agent's clock (``start + offset``) and the probe the agent
returns is moved back onto the coordinator's (``probe.start - offset``), so its measured
window is the coordinator's; each agent's offset and round trip are in the probe
(``driver_agents``) and the report.

An agent runs each share in a driver process of its own (spawned, as local ones are), one
coordinator at a time; Ctrl-C in the coordinator reaches it as an ``interrupt`` message.

Lost agents: the agent's driver process keeps a step journal on the agent's host, and the
agent sends its new lines to the coordinator every :data:`STREAM_SECONDS` (``steps``
messages). The coordinator keeps them (and appends them to its own journal for that
share), so an agent killed mid-run, its host gone or its driver process killed loses at
most the last interval's steps: the coordinator merges what it received, names the agent
(``agent HOST:PORT``) in the probe's errors, and the probe is ``partial``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from dbbench.drivers.errors import DriversError
from dbbench.reports import safeio
from dbbench.reports.o2c.model import O2CSteps, journal_steps

#: Round trips of the clock measurement (the shortest one is kept).
CLOCK_ROUNDS = 7
#: The environment variable holding the agents' shared token (never on a command line of
#: the coordinator, never in a result).
TOKEN_ENV = "DBBENCH_AGENT_TOKEN"
#: Seconds the coordinator waits for an agent to answer at all.
CONNECT_LIMIT = 10.0
#: Seconds between two ``steps`` messages of an agent (what a lost agent may lose at most).
STREAM_SECONDS = 0.5


def parse_address(url: str) -> tuple[str, int]:
    """``o2c://HOST:PORT`` (or ``HOST:PORT``) as an address; ``DriversError`` otherwise."""
    text = url.removeprefix("o2c://").rstrip("/")
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise DriversError(f"driver agent {url!r}: expected o2c://HOST:PORT")
    return host, int(port)


def agent_token(token: str | None = None) -> bytes:
    """The shared token: ``token``, else :data:`TOKEN_ENV`; ``DriversError`` when neither."""
    found = token if token is not None else os.environ.get(TOKEN_ENV, "")
    if not found:
        raise DriversError(f"driver agents need the shared token: set {TOKEN_ENV}")
    return found.encode("utf-8")


class AgentHandle:
    """One agent, as the coordinator's loop sees a driver process (``is_alive``, ``join``,
    ``kill``, ``interrupt``, ``exitcode``, ``pid``)."""

    pid: int | None = None
    exitcode: int | None = None

    def __init__(self, url: str, token: bytes, index: int, inbox: Any, go: Any, start: Any):
        self.url, self.index = url, index
        self.inbox, self.go, self.start = inbox, go, start
        host, port = parse_address(url)
        self.address = f"{host}:{port}"
        self.lost_reason = "its connection closed"
        #: the step-journal lines the agent streamed so far (its steps if it is lost)
        self.received: list[str] = []
        #: the coordinator's journal of this share (``received`` appended as it comes)
        self.journal: Path | None = None
        try:
            self.conn: Connection = _connect((host, port), token)
        except mp.AuthenticationError:
            raise DriversError(
                f"driver agent {self.address} refused the token (set {TOKEN_ENV} to the "
                "agent's --token)"
            ) from None
        except OSError as exc:
            raise DriversError(
                f"driver agent {self.address}: cannot connect ({exc.strerror or exc})"
            ) from None
        self.offset, self.round_trip = measure_clock(self.conn)
        self._thread: threading.Thread | None = None

    def describe(self) -> str:
        """The agent in the probe's ``driver_agents``: address, offset, round trip."""
        return (
            f"{self.address}: driver process {self.index + 1}, clock offset "
            f"{self.offset:+.6f} s (round trip {self.round_trip:.6f} s)"
        )

    def begin(self, urls: list[str], prepared: Any, config: Any, part: tuple[int, int]) -> None:
        """Hand the share over and relay the agent's messages from now on."""
        self.conn.send(("drive", urls, prepared, config, part))
        self._thread = threading.Thread(target=self._relay, name=f"agent-{self.index}")
        self._thread.daemon = True
        self._thread.start()

    def _relay(self) -> None:
        try:
            while True:
                kind, _, payload = self.conn.recv()
                if kind == "ready":
                    self.inbox.put(("ready", self.index, None))
                    self.go.wait()
                    self.conn.send(("go", float(self.start.value) + self.offset))
                    continue
                if kind == "steps":
                    self._keep(str(payload))
                    continue
                if kind == "probe":
                    payload.index = self.index
                    payload.probe.start -= self.offset  # onto the coordinator's clock
                elif kind == "error":
                    payload = f"agent {self.address}: {payload}"
                self.inbox.put((kind, self.index, payload))
                if kind in ("probe", "error"):
                    return
        except (EOFError, OSError) as exc:
            self.lost_reason = f"its connection closed ({exc or 'end of stream'})"
        finally:
            with contextlib.suppress(OSError):
                self.conn.close()

    def _keep(self, chunk: str) -> None:
        self.received.extend(chunk.splitlines())
        if self.journal is not None:
            with safeio.open_append(self.journal) as f:
                f.write(chunk)

    def steps_so_far(self) -> O2CSteps:
        """The steps the agent streamed before it was lost (:data:`STREAM_SECONDS`)."""
        return journal_steps(self.received)

    def is_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def interrupt(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("interrupt",))

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)


def _connect(address: tuple[str, int], token: bytes) -> Connection:
    """A connection to the agent (the socket's connect bounded by :data:`CONNECT_LIMIT`)."""
    import socket

    with socket.create_connection(address, timeout=CONNECT_LIMIT):
        pass  # reachable: the authenticated connection follows
    return Client(address, authkey=token)


def measure_clock(conn: Connection, rounds: int = CLOCK_ROUNDS) -> tuple[float, float]:
    """The agent's clock offset (its time minus ours) and the round trip it was measured
    in: the round of the shortest round trip of ``rounds``."""
    best: tuple[float, float] | None = None
    for _ in range(rounds):
        sent = time.time()
        conn.send(("clock",))
        kind, theirs = conn.recv()
        back = time.time()
        if kind != "clock":
            raise DriversError("driver agent: not an o2c agent (no clock answer)")
        trip = back - sent
        if best is None or trip < best[1]:
            best = (float(theirs) - (sent + back) / 2, trip)
    assert best is not None
    return best


def serve(
    host: str, port: int, token: bytes, say: Callable[[str], None], once: bool = False
) -> None:
    """``dbbench o2c agent``: listen on ``host:port`` and drive what each coordinator with
    the token hands over, one at a time (``once``: only the first); a peer without the token
    is refused, in one line, and the agent goes on listening."""
    from dbbench.drivers.o2c.driver_process import drive as _drive

    with Listener((host, port), authkey=token) as listener:
        say(f"o2c agent listening on o2c://{host}:{port}")
        while True:
            try:
                conn = listener.accept()
            except mp.AuthenticationError:
                say("refused a coordinator: wrong token")
                continue
            except (OSError, EOFError) as exc:
                say(f"a coordinator's connection failed: {exc}")
                continue
            with conn:
                try:
                    _serve_one(conn, _drive, say)
                except (EOFError, OSError) as exc:
                    say(f"the coordinator went away: {exc or 'end of stream'}")
            if once:
                return


def _serve_one(conn: Connection, drive: Callable[..., None], say: Callable[[str], None]) -> None:
    msg = conn.recv()
    while msg[0] == "clock":
        conn.send(("clock", time.time()))
        msg = conn.recv()
    if msg[0] != "drive":
        return
    _, urls, prepared, config, part = msg
    say(f"driving driver process {part[0] + 1} of {part[1]}: {config.users} users' share")
    with tempfile.TemporaryDirectory(prefix="dbbench-o2c-agent-") as folder:
        _drive_share(conn, drive, say, (urls, prepared, config, part), Path(folder) / "steps.csv")


def _drive_share(
    conn: Connection,
    drive: Callable[..., None],
    say: Callable[[str], None],
    share: tuple[Any, Any, Any, tuple[int, int]],
    journal: Path,
) -> None:
    """One share in a driver process of the agent's own, its journal's new lines streamed
    to the coordinator every :data:`STREAM_SECONDS`, then its probe (or why it failed)."""
    urls, prepared, config, part = share
    ctx = mp.get_context("spawn")
    inbox: Any = ctx.Queue()
    go: Any = ctx.Event()
    start: Any = ctx.Value("d", 0.0)
    args = (urls, prepared, config, part, journal, inbox, go, start)
    proc = ctx.Process(target=drive, args=args, name=f"o2c-agent-driver-{part[0]}", daemon=True)
    proc.start()
    tail = _Tail(journal)

    def control() -> None:
        while True:
            try:
                m = conn.recv()
            except (EOFError, OSError):  # the coordinator is gone: so is its run
                if proc.is_alive():
                    proc.kill()
                return
            if m[0] == "go":
                start.value = float(m[1])
                go.set()
            elif m[0] == "interrupt" and proc.pid is not None:
                with contextlib.suppress(OSError):
                    os.kill(proc.pid, signal.SIGINT)

    threading.Thread(target=control, name="agent-control", daemon=True).start()
    try:
        while True:
            try:
                item = inbox.get(timeout=STREAM_SECONDS)
            except queue.Empty:
                new = tail.read()
                if new:
                    conn.send(("steps", part[0], new))
                if not proc.is_alive():
                    new = tail.read()  # the last lines it wrote
                    if new:
                        conn.send(("steps", part[0], new))
                    reason = f"its driver process exited with code {proc.exitcode}"
                    conn.send(("error", part[0], reason))
                    return
                continue
            conn.send(item)
            if item[0] in ("probe", "error"):
                say(f"driver process {part[0] + 1}: {item[0]} sent")
                return
    finally:
        proc.join(10)
        if proc.is_alive():
            proc.kill()


class _Tail:
    """The whole lines added to a journal file since the last :meth:`read`."""

    def __init__(self, path: Path):
        self.path, self.offset = path, 0

    def read(self) -> str:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return ""
        whole = data[: data.rfind(b"\n") + 1]
        self.offset += len(whole)
        return whole.decode("utf-8", "replace")
