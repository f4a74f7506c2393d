"""One o2c probe driven by several driver processes, merged exactly.

The driver's work processes are threads under one GIL: one Python process drives about
1,200-1,450 dialog steps/s at most. With ``--driver-processes N`` the coordinator (this
module, in the command's process) starts N driver processes (``multiprocessing`` spawn),
each running the one :class:`~dbbench.drivers.o2c.simulator.Simulator` loop for the users
``i % N == k`` with its share of the work processes. They start together: each opens its
connections, says it is ready, and all begin at one epoch the coordinator sets (one ramp-up,
one measured window on one clock; every user keeps its log-on slot of the whole run).

:func:`merge` joins their probes exactly: the steps' columns are concatenated (due times
moved onto the earliest start), so every rate, average and percentile the reports compute
comes from the merged samples; the driver's lag percentiles come from the merged lag
samples; errors, log-ons, work processes and driver CPU add up. A driver process that dies
is named in the probe's errors and its steps are read back from its own step journal; a
lost agent (``drivers.o2c.agents``) is named by its address and its steps are the ones it
streamed to the coordinator until then.
Ctrl-C or SIGTERM in the coordinator is passed on to every driver process (SIGINT), whose
probes end where they stopped and are merged as usual.

A workload beside the run (``drivers.mixed``: query streams and the freshness probe, in the
coordinator's process) joins through :class:`Beside`: each driver process tells the
coordinator of every acknowledged invoice (its order key and ``time.monotonic()``, one
clock for the processes of a host), and a lost server on the workload's side halts every
driver process as it would halt a one-process run.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import queue
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c.agents import AgentHandle, agent_token
from dbbench.drivers.o2c.capacity import work_processes
from dbbench.drivers.o2c.driver_process import Part as Part
from dbbench.drivers.o2c.driver_process import drive as _drive
from dbbench.drivers.o2c.setup import Prepared
from dbbench.drivers.o2c.simulator import INTERRUPTED, RunConfig
from dbbench.reports.model import ResultStatus
from dbbench.reports.o2c.model import O2CProbe, O2CSteps

#: Seconds the coordinator waits for every driver process to open its connections.
READY_LIMIT = 120.0
#: Seconds between the last process being ready and the common start.
START_MARGIN = 0.5
#: Seconds a driver process may take to hand back its probe after its run ended.
RESULT_LIMIT = 120.0
#: ``--driver-processes auto`` (``RunConfig.driver_processes``): sized per probe
AUTO = 0
#: Driver CPU seconds per dialog step of one driver process, as measured by
#: ``benchmarks/o2c_driver_capacity.py`` on the 2-core VM (0.55 ms; asyncio users, the
#: work-process pool and the recording of each step)
DRIVER_CPU_PER_STEP = 0.00055
#: The share of one CPU an ``auto``-sized driver process is planned to use at most: below
#: ``reports.o2c.metrics.DRIVER_CPU_BOUND`` (0.7), from which a report names the driver's
#: own CPU as what the users waited for
AUTO_BUSY = 0.5


#: How the errors begin that are the whole run's, not one process's (merged unprefixed).
RUN_WIDE = (INTERRUPTED, "the server went away", "the query streams stopped")


class Beside:
    """A workload beside the run, in the coordinator's process (``drivers.mixed``):
    ``posted(order key, acknowledged)`` for each step ``step`` a user saw committed (the
    acknowledgement on ``time.monotonic()``), and :meth:`halt` to stop every driver process
    (as a lost server does: the run is ``failed``), even before they have started."""

    def __init__(self, posted: Callable[[int, float], None] | None, step: int) -> None:
        self.posted, self.step = posted, step
        self.reason: str | None = None
        self._signal: Callable[[str], None] | None = None

    def halt(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        if self._signal is not None:
            self._signal(self.reason)

    def attach(self, signal_: Callable[[str], None]) -> None:
        self._signal = signal_
        if self.reason is not None:
            signal_(self.reason)


def resolve(
    engine: Engine, config: RunConfig, pool: int, cpus: int | None = None
) -> tuple[int, str]:
    """How many driver processes drive ``config`` (``auto``: :func:`auto_processes`, and
    why; else the number given and "")."""
    n = config.driver_processes
    if n != AUTO:
        return n, ""
    c, host = config, cpus or os.cpu_count() or 1
    return auto_processes(engine, c.users, c.think, c.expected_rt, pool, host)


def require_shareable(engine: Engine, processes: int) -> None:
    """Several driver processes need a database server they all reach: an embedded engine
    (no connection limit to read: DuckDB, Hyper, chDB, ...) refuses ``processes > 1``."""
    if processes < 1 and processes != AUTO:
        raise DriversError(f"--driver-processes must be at least 1, not {processes}")
    if processes > 1 and engine.facts.connections_sql is None:
        raise DriversError(
            f"--driver-processes {processes}: {engine.name} is embedded in the driver and "
            "cannot share its database across processes; use 1"
        )


def auto_processes(
    engine: Engine, users: int, think: float, expected_rt: float, pool: int, cpus: int
) -> tuple[int, str]:
    """How many driver processes ``auto`` takes for a probe, and why (one line): the
    offered load of a closed loop, ``users / (think + RT)`` dialog steps/s, times
    :data:`DRIVER_CPU_PER_STEP`, over :data:`AUTO_BUSY` of a CPU each; at least 1, at most
    the host's ``cpus``, the users and the work processes ``pool`` (each process needs one).
    An embedded engine (its database in the driver's process) takes 1."""
    if engine.facts.connections_sql is None:
        return 1, f"auto: 1 ({engine.name} is embedded in the driver: one process)"
    rate = users / max(think + expected_rt, 1e-3)
    cpu = rate * DRIVER_CPU_PER_STEP
    wanted = max(1, math.ceil(cpu / AUTO_BUSY))
    cap = max(1, min(cpus, users, pool))
    n = min(wanted, cap)
    why = (
        f"auto: {rate:,.0f} dialog steps/s offered x {DRIVER_CPU_PER_STEP * 1e3:.2f} ms of "
        f"driver CPU a step = {cpu:.2f} CPU, at most {AUTO_BUSY:g} a process: {n}"
    )
    if wanted > cap:
        why += f" (capped: {cpus} CPUs, {users} users, {pool} work processes; {wanted} wanted)"
    return n, why


def shares(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` nearly equal whole shares (the first ones larger)."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def run_processes(
    engine: Engine,
    urls: Sequence[str],
    prepared: Prepared,
    config: RunConfig,
    processes: int,
    journal: Path | None = None,
    beside: Beside | None = None,
) -> O2CProbe:
    """One probe of ``config`` on the engines of ``urls`` driven by ``processes`` driver
    processes (each with its share of users and work processes), merged (:func:`merge`);
    ``beside``: a workload beside it (local driver processes only)."""
    local = processes
    processes = local + len(config.agents)  # an agent drives one share, as a process does
    require_shareable(engine, processes)
    if processes > config.users:
        raise DriversError(f"--driver-processes {processes}: more than the {config.users} users")
    pool = work_processes(engine, -(-config.users // len(urls)), config.work_processes)
    if pool < processes:
        raise DriversError(
            f"--driver-processes {processes}: each needs a work process, the pool has {pool}"
        )
    ctx = mp.get_context("spawn")
    inbox: Any = ctx.Queue()
    go: Any = ctx.Event()
    start: Any = ctx.Value("d", 0.0)
    coupled: tuple[Any, Any, int | None] | None = None
    if beside is not None:
        if config.agents:
            raise DriversError("a workload beside the run takes no --driver-agent")
        coupled = (ctx.Event(), ctx.Array("c", 1024), beside.step if beside.posted else None)
        beside.attach(lambda reason: _halt_all(coupled, reason))
    journals = [_journal(journal, k) for k in range(processes)]
    for j in journals:
        if j is not None:
            j.unlink(missing_ok=True)
    procs: list[Any] = []
    agents: list[AgentHandle] = []
    if config.agents:  # connected (and the token proved) before anything starts
        token = agent_token()
        for n, url in enumerate(config.agents):
            agents.append(AgentHandle(url, token, local + n, inbox, go, start))
            agents[-1].journal = journals[local + n]
    for k, w in enumerate(shares(pool, processes)):
        cfg = replace(config, work_processes=w, agents=())
        if k >= local:
            agents[k - local].begin(list(urls), prepared, cfg, (k, processes))
            procs.append(agents[k - local])
            continue
        args = (list(urls), prepared, cfg, (k, processes), journals[k], inbox, go, start, coupled)
        procs.append(ctx.Process(target=_drive, args=args, name=f"o2c-driver-{k}", daemon=True))
    for p in procs[:local]:
        p.start()
    parts: dict[int, Part] = {}
    lost: dict[int, str] = {}
    interrupted = False
    try:
        _await_ready(procs, inbox, go, start, lost)
        interrupted = _collect(procs, inbox, parts, lost, beside)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
            p.join(5)
    for k in sorted(lost):
        p = procs[k]
        found = _bare(p.steps_so_far()) if isinstance(p, AgentHandle) else None
        found = found or _from_journal(journals[k])
        if found is not None:
            parts[k] = Part(k, found)
    merged = merge([parts[k] for k in sorted(parts)], processes)
    merged.driver_agents = [a.describe() for a in agents]
    for k in sorted(lost):
        merged.errors.append(f"driver process {k + 1} of {processes} was lost: {lost[k]}")
        if merged.status == "complete":
            merged.status = "partial"
    if interrupted and not any(e.startswith(INTERRUPTED) for e in merged.errors):
        merged.errors.append(f"{INTERRUPTED} (Ctrl-C or kill): the run stopped early")
    for j in journals:
        if j is not None:
            j.unlink(missing_ok=True)
    return merged


def _halt_all(coupled: tuple[Any, Any, int | None], reason: str) -> None:
    halt, text, _ = coupled
    text.value = reason.encode("utf-8", "replace")[:1000]
    halt.set()


def _journal(journal: Path | None, k: int) -> Path | None:
    return None if journal is None else journal.with_name(f"{journal.name}.{k + 1}")


def _await_ready(procs: list[Any], inbox: Any, go: Any, start: Any, lost: dict[int, str]) -> None:
    """Wait until every driver process has its connections open, then set the common start
    (a process that fails before it is ready fails the run, in one line)."""
    ready: set[int] = set()
    waited = 0.0
    while len(ready) < len(procs):
        try:
            kind, k, payload = inbox.get(timeout=0.5)
        except queue.Empty:
            waited += 0.5
            dead = [n for n, p in enumerate(procs) if not p.is_alive() and n not in ready]
            if dead or waited > READY_LIMIT:
                raise DriversError(
                    f"driver process {(dead or [len(ready)])[0] + 1} did not start "
                    f"(exit code {procs[(dead or [0])[0]].exitcode})"
                ) from None
            continue
        if kind == "error":
            raise DriversError(f"driver process {k + 1}: {payload}")
        ready.add(k)
    start.value = time.time() + START_MARGIN
    go.set()


def _collect(
    procs: list[Any],
    inbox: Any,
    parts: dict[int, Part],
    lost: dict[int, str],
    beside: Beside | None = None,
) -> bool:
    """Every driver process's probe; a process gone without one is ``lost``. Ctrl-C or
    SIGTERM here is passed on to the driver processes (their probes end where they stopped)
    and True is returned."""
    interrupted = False
    dead_for = 0.0
    while len(parts) + len(lost) < len(procs):
        try:
            try:
                kind, k, payload = inbox.get(timeout=0.5)
            except queue.Empty:
                dead_for = _note_lost(procs, parts, lost, dead_for)
                if interrupted and dead_for > RESULT_LIMIT:
                    break
                continue
            if kind == "posted":
                if beside is not None and beside.posted is not None:
                    beside.posted(*payload)
            elif kind == "probe":
                parts[k] = payload
            elif kind == "error":
                lost[k] = str(payload)
        except KeyboardInterrupt:
            interrupted = True
            for p in procs:
                if isinstance(p, AgentHandle):
                    p.interrupt()
                elif p.is_alive() and p.pid is not None:
                    with contextlib.suppress(OSError):
                        os.kill(p.pid, signal.SIGINT)
    return interrupted


def _note_lost(
    procs: list[Any], parts: dict[int, Part], lost: dict[int, str], dead_for: float
) -> float:
    """Name the driver processes gone without a probe (after 2 s: one may still be handing
    its probe over); returns the seconds a process has been seen dead so far."""
    dead = [n for n, p in enumerate(procs) if n not in parts and n not in lost and not p.is_alive()]
    if not dead:
        return dead_for
    dead_for += 0.5
    if dead_for > 2.0:
        for n in dead:
            p = procs[n]
            lost[n] = (
                f"agent {p.address}: {p.lost_reason}"
                if isinstance(p, AgentHandle)
                else f"it exited with code {p.exitcode} (pid {p.pid})"
            )
    return dead_for


def _from_journal(journal: Path | None) -> O2CProbe | None:
    """The steps a lost driver process wrote to its journal, as a bare probe (no window)."""
    if journal is None or not journal.is_file():
        return None
    bare = O2CProbe(0, 0.0, "fixed", 1, 0.0, 0.0, 0.0, 0.0, 0.0, steps_journal=journal.name)
    bare.complete_steps(journal.parent)
    return bare if bare.steps.step else None


def _bare(steps: O2CSteps) -> O2CProbe | None:
    """Steps a lost agent streamed, as a bare probe (no window); None when there are none."""
    if not steps.step:
        return None
    return O2CProbe(0, 0.0, "fixed", 1, 0.0, 0.0, 0.0, 0.0, 0.0, steps=steps)


def _quantile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def merge(parts: Sequence[Part], processes: int | None = None) -> O2CProbe:
    """The probes of the driver processes of one run as one probe, exactly: the steps'
    columns concatenated in order of due time on the earliest start's clock; the lag
    percentiles from the merged lag samples; log-ons, errors, work processes and driver CPU
    summed; the window the one all processes measured (the earliest end where one stopped
    early); the status the worst of theirs. ``processes``: how many drove (default: the
    parts); each one's driver CPU is kept in ``driver_cpu_by_process``."""
    if not parts:
        raise DriversError("no driver process handed back a probe")
    timed = [p for p in parts if p.probe.window_end > 0] or list(parts)
    base = min(p.probe.start for p in timed)
    first = timed[0].probe
    rows: list[tuple[float, int, int, float, float, int]] = []
    for part in parts:
        s, shift = part.probe.steps, (part.probe.start - base if part.probe.start else 0.0)
        rows.extend(
            (round(d + shift, 6), st, u, w, db, ok)
            for st, u, d, w, db, ok in zip(s.step, s.user, s.due, s.wait, s.db, s.ok, strict=True)
        )
    rows.sort(key=lambda r: (r[0], r[2]))
    steps = O2CSteps(
        step=[r[1] for r in rows], user=[r[2] for r in rows], due=[r[0] for r in rows],
        wait=[r[3] for r in rows], db=[r[4] for r in rows], ok=[r[5] for r in rows],
    )  # fmt: skip
    errors = [
        f"driver process {p.index + 1}: {e}" if not e.startswith(RUN_WIDE) else e
        for p in parts
        for e in p.probe.errors
    ]
    errors = list(dict.fromkeys(errors))
    cpu = [p.probe.driver_cpu_seconds for p in timed]
    statuses = [p.probe.status for p in timed]
    status: ResultStatus = "complete"
    if "failed" in statuses:
        status = "failed"
    elif "partial" in statuses:
        status = "partial"
    merged = replace(
        first,
        work_processes=sum(p.probe.work_processes for p in timed),
        start=base,
        window_start=max(p.probe.window_start for p in timed),
        window_end=min(p.probe.window_end for p in timed),
        end=max(p.probe.end + (p.probe.start - base) for p in timed),
        status=status,
        logged_on=sum(p.probe.logged_on for p in timed),
        steps=steps,
        errors=errors,
        driver_cpu_seconds=None if None in cpu else sum(c or 0.0 for c in cpu),
        driver_cpu_by_process=[round(c, 3) for c in cpu if c is not None],
        driver_processes=processes or len(parts),
        server_cpu_seconds=_server_cpu(timed),
    )
    lags = sorted(v for p in parts for v in p.lags)
    if lags:
        merged.driver_lag_p50 = round(lags[len(lags) // 2], 6)
        merged.driver_lag_p99 = round(_quantile(lags, 0.99), 6)
        merged.driver_lag_max = round(lags[-1], 6)
    return merged


def _server_cpu(parts: Sequence[Part]) -> float | None:
    """The server CPU of the run: summed where each process measured its own connections'
    server processes or threads, else (every process saw the whole server) the largest."""
    seen = [p.probe.server_cpu_seconds for p in parts]
    if not seen or None in seen:
        return None
    values = [v or 0.0 for v in seen]
    own = all("own connections" in p.server_scope or "thread" in p.server_scope for p in parts)
    return sum(values) if own else max(values)
