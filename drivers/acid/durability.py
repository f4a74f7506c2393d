"""Durability (3.5) for the one failure type the kit can cause: a crash that needs a restart.

The S + 1 streams run in a process of their own (:mod:`dbbench.drivers.acid.streams`); when
each has ``per_stream`` committed ACID Transactions (in the success file) and one in flight,
the kit causes the failure: an embedded engine's process is killed with SIGKILL (the engine
dies with it); a server is killed by the ``kill`` command (a server the kit or a test
started, or the user's own), then started again by the ``restart`` command. The database
is then opened anew (normal recovery) and compared with the success file: every record has
its HISTORY row, at most one HISTORY row per stream has no record (the one in flight), and
the consistency condition holds on every order touched and on the sample.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbbench.drivers.acid.transaction import HISTORY, inconsistent
from dbbench.drivers.engine import Engine
from dbbench.drivers.engines.restart import run_restart, wait_ready
from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import open_engine
from dbbench.reports.acid.model import AcidCheck

CRASH = "system crash (process or server killed)"
#: how long the streams may take to reach their commits, and a killed process to go
STREAMS_SECONDS = 600.0


@dataclass(frozen=True)
class Failure:
    """How the kit causes the crash and recovers from it."""

    how: str
    #: kills the server (None: the streams' own process is the engine and is killed)
    kill: Callable[[], None] | None = None
    #: starts it again (None: the next open recovers, as an embedded engine does)
    restart: Callable[[], None] | None = None


def embedded() -> Failure:
    return Failure("the process running the embedded engine killed with SIGKILL")


def commands(engine: str, kill: str, restart: str) -> Failure:
    """The user's (or a test's private server's) kill and restart commands."""
    return Failure(
        f"server killed by the command {kill!r}, started again by {restart!r}",
        kill=lambda: run_restart(engine, kill),
        restart=lambda: run_restart(engine, restart),
    )


def _rows(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def _key(row: dict[str, object]) -> tuple[str, ...]:
    return tuple(str(row[k]) for k in ("o_key", "l_key", "delta", "date_t"))


def _history(engine: Engine) -> Counter[tuple[str, ...]]:
    session = engine.session()
    try:
        rows = session.query(f"SELECT h_o_key, h_l_key, h_delta, h_date_t FROM {HISTORY}").rows
    finally:
        session.close()
    return Counter(tuple(str(v) for v in row) for row in rows)


def run_durability(
    url: str,
    engine: Engine,
    orders: list[int],
    sample: list[int],
    *,
    streams: int,
    per_stream: int,
    failure: Failure,
) -> tuple[AcidCheck, Engine]:
    """The test; ``engine`` is closed here (the streams' process opens the database) and
    the engine opened after the recovery is returned with the check."""
    check = AcidCheck(name="durability", verdict="passed")
    check.inputs = {"streams": streams, "transactions_per_stream": per_stream}
    start = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="dbbench-acid-"))
    #: what the streams' process is given (``drivers.acid.streams``)
    spec: dict[str, Any] = {"url": url, "folder": str(folder), "streams": streams}
    spec |= {"per_stream": per_stream, "orders": orders}
    try:
        return _run(spec, engine, sample, failure, check)
    except DriversError as exc:
        check.verdict = "failed"
        check.message = f"{(check.steps or ['start'])[-1]}: {exc}"
        with suppress(Exception):
            engine.close()
        return check, _opened(url)
    finally:
        check.seconds = time.perf_counter() - start
        _remove(folder)


def _run(
    spec: dict[str, Any], engine: Engine, sample: list[int], failure: Failure, check: AcidCheck
) -> tuple[AcidCheck, Engine]:
    url, folder, streams = str(spec["url"]), Path(spec["folder"]), int(spec["streams"])
    bad = inconsistent_on(engine, sample)
    before = _history(engine)
    check.steps.append(f"condition checked on {len(sample)} orders")
    engine.close()
    spec_file = folder / "spec.json"
    spec_file.write_text(json.dumps(spec), "utf-8")
    package = sys.modules["dbbench"].__file__ or ""  # the kit the child imports
    path = [str(Path(package).parent.parent), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    with open(folder / "streams.log", "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dbbench.drivers.acid.streams", str(spec_file)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=env, start_new_session=True,
        )  # fmt: skip
    try:
        _wait_in_flight(proc, folder, streams)
        check.steps.append(
            f"{streams} streams x {spec['per_stream']} committed, one in flight each: {failure.how}"
        )
        if failure.kill is not None:
            failure.kill()
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STREAMS_SECONDS)
    if failure.restart is not None:
        failure.restart()
        check.steps.append("server restarted")
    after = wait_ready("acid", lambda: _opened(url))
    check.steps.append("database opened again (recovery)")
    history = _history(after) - before
    success = _rows(folder / "success.jsonl")
    flight = [r for r in _rows(folder / "in_flight.jsonl") if not r.get("done")]
    wanted = Counter(_key(r) for r in success)
    lost = wanted - history
    extra = history - wanted
    flying = Counter(_key(r) for r in flight)
    unexplained = extra - flying
    touched = sorted({int(str(r["o_key"])) for r in success + flight} | set(sample))
    bad += inconsistent_on(after, touched)
    check.observed = {
        "success_records": str(len(success)),
        "lost_commits": str(sum(lost.values())),
        "history_rows_without_record": str(sum(extra.values())),
        "inconsistent_orders": str(len(bad)),
    }
    check.expected = {
        "success_records": str(streams * int(spec["per_stream"])),
        "lost_commits": "0",
        "history_rows_without_record": f"at most {streams} (in flight)",
        "inconsistent_orders": "0",
    }
    if lost:
        check.verdict = "failed"
        check.message = (
            f"after the restart {sum(lost.values())} committed ACID Transactions "
            f"of the success file have no HISTORY row (e.g. {next(iter(lost))})"
        )
    elif unexplained or sum(extra.values()) > streams:
        check.verdict = "failed"
        check.message = f"{sum(extra.values())} HISTORY rows without a success record"
    elif bad:
        check.verdict, check.message = "failed", "after the restart: " + "; ".join(bad[:3])
    return check, after


def inconsistent_on(engine: Engine, orders: list[int]) -> list[str]:
    session = engine.session()
    try:
        return inconsistent(session, orders)
    finally:
        session.close()


def _opened(url: str) -> Engine:
    engine = open_engine(url)
    try:
        engine.session().close()
    except BaseException:
        engine.close()
        raise
    return engine


#: after every stream's commits, how long the kit waits for all to have one in flight
#: before it settles for those that have (one writer at a time: SQLite)
FLIGHT_SECONDS = 2.0


def _wait_in_flight(proc: subprocess.Popen[bytes], folder: Path, streams: int) -> None:
    """Until every stream has its commits and one transaction in flight (or, once all
    have their commits, at least one in flight for :data:`FLIGHT_SECONDS`)."""
    deadline = time.monotonic() + STREAMS_SECONDS
    settled: float | None = None
    while True:
        rows = _rows(folder / "in_flight.jsonl")
        done = sum(1 for r in rows if r.get("done"))
        flying = len(rows) - done
        if done == streams and flying >= 1:
            settled = settled or time.monotonic()
            if flying == streams or time.monotonic() - settled >= FLIGHT_SECONDS:
                return
        if proc.poll() is not None:
            said = " ".join((folder / "streams.log").read_text("utf-8", "replace").split())
            raise DriversError(f"the durability streams exited {proc.returncode}: {said[-300:]}")
        if time.monotonic() > deadline:
            raise DriversError(f"the durability streams did not finish in {STREAMS_SECONDS:.0f} s")
        time.sleep(0.05)


def _remove(folder: Path) -> None:
    for path in folder.iterdir():
        with suppress(OSError):
            path.unlink()
    with suppress(OSError):
        folder.rmdir()
