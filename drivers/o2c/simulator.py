"""Simulated o2c users: asyncio tasks with think time over a bounded pool of work processes.

Like SAP's dispatcher, a user whose think time has expired queues for one of ``W`` work
processes (each holds one database connection); the dialog response time is the wait for a
work process plus the database call, measured from the instant the think time expired
(scheduled, not observed: a lagging event loop shows up as response time, never hides it).
Each dialog step is one short transaction; nothing stays open while a user thinks.

Phases: users log on over the ramp-up, by default one full loop (15 steps x (think +
expected RT)), at evenly spaced instants handed out in a random order of the users: each
user's entry point in the loop is uniform over the loop's steps (every user starts its own
order with step 1, since steps 5-15 need the order steps 1-4 create, but at a uniformly
random phase), so the users do not move through the loop in step. The steady-state window
starts one think time after the last log-on (every user has worked), is a whole number of
loops long (so it holds every step in its nominal share) and alone is measured; then users
stop and in-flight steps finish (ramp-down). A run stopped early (Ctrl-C, kill) ends its
window where it stopped: rates are over the time really measured. Every step of every phase
is recorded; the reports select the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from dbbench.drivers.engine import BackendProcess, BackendThread, Engine, Session
from dbbench.drivers.errors import ConnectionLostError, DriversError
from dbbench.drivers.o2c.capacity import work_processes
from dbbench.drivers.o2c.config import EXPECTED_RT as EXPECTED_RT
from dbbench.drivers.o2c.config import SD_WINDOW as SD_WINDOW
from dbbench.drivers.o2c.config import RunConfig as RunConfig
from dbbench.drivers.o2c.config import planned_probe as planned_probe
from dbbench.drivers.o2c.config import whole_loops as whole_loops
from dbbench.drivers.o2c.servercpu import (
    attribution,
    backend_ids,
    busy_share,
    host_jiffies,
    server_cpu_meter,
)
from dbbench.drivers.o2c.setup import (
    Prepared,
    UserData,
    begin_sql,
    require_capable,
    transaction,
    user_data,
)
from dbbench.queries import o2c as q
from dbbench.reports import safeio
from dbbench.reports.o2c.model import O2CProbe, O2CSteps

INTERRUPTED = "interrupted"
#: Seconds the ramp-down waits for in-flight steps before giving up on them.
RAMPDOWN_LIMIT = 60.0


@dataclass
class Progress:
    """What a progress line shows."""

    phase: str
    elapsed: float
    logged_on: int
    users: int
    steps_per_second: float
    avg_rt: float
    errors: int
    remaining: float


@dataclass
class UserState:
    data: UserData
    lo: int
    hi: int
    rng: random.Random
    next_seq: int = 0
    needs_logon: bool = True
    step: int = 1  # the next step of the loop, 1..15
    orderkey: int = 0
    order_day: int = 0
    lines: list[q.Line] = field(default_factory=list)
    stock: dict[tuple[int, int], int] = field(default_factory=dict)
    invoice_cents: int = 0


class Fatal(Exception):
    """The run cannot go on (the server went away)."""


class Simulator:
    def __init__(
        self,
        engine: Engine,
        prepared: Prepared,
        config: RunConfig,
        progress: Callable[[Progress], None] | None = None,
        journal: Path | None = None,
        url: str | None = None,
        nodes: list[Engine] | None = None,
    ) -> None:
        """``nodes``: the database nodes of a multi-master cluster (``engine`` first), for
        an SD-Parallel-style run: user ``u`` works on node ``u % len(nodes)`` (round-robin),
        through that node's own pool of work processes."""
        config.validate()
        if config.users > prepared.users:
            raise DriversError(
                f"{config.users} users, but the database is prepared for {prepared.users}: "
                f"run `dbbench o2c prepare --users {config.users}` (after cleanup)"
            )
        require_capable(engine)  # an engine the steps cannot run on: now, in one line
        self.nodes = nodes or [engine]
        per_node = -(-config.users // len(self.nodes))  # users on the busiest node
        self.pool = min(
            work_processes(n, per_node, config.work_processes) for n in self.nodes
        )  # work processes per node
        self.engine = engine
        self.prepared = prepared
        self.config = config
        self.progress = progress
        self.journal = journal
        self.url = url
        # a local server's own CPU: set when the run's connections are open
        self.server_meter: Callable[[], Callable[[], float]] | None = None
        self.server_cpu_scope = attribution(engine.facts.server_processes, url)
        self.lags: list[float] = []  # per step: seconds from due to the user task running
        #: the step journal, line-buffered: each finished step is one write(2) as it is
        #: recorded, so SIGKILL loses no finished step (the page cache keeps what was
        #: written); fsync'ed once, at the end
        self._journal_file: TextIO | None = None
        self.begin = begin_sql(engine)
        self.rec = O2CSteps()
        self.errors: list[str] = []
        self.error_count = 0
        self.logged_on = 0
        self.fatal: str | None = None
        self.stop: asyncio.Event | None = None
        self.stopped_early = False
        #: hooks for a run beside another workload (``drivers.mixed``): called in the event
        #: loop after each recorded step (step, user state, ok, end on ``loop.time()``)
        self.on_step: Callable[[int, UserState, int, float], None] | None = None
        self.t0: float | None = None  # the run's start on ``loop.time()`` (monotonic)
        self._loop: asyncio.AbstractEventLoop | None = None
        #: the log-on slot of each user (0..users-1): evenly spaced instants over the
        #: ramp-up in a seeded random order of the users, so entry phases are uniform
        slots = list(range(config.users))
        random.Random(config.seed).shuffle(slots)
        self.slots = slots
        #: several driver processes (``drivers.o2c.processes``): this one drives the users
        #: of index ``i % part[1] == part[0]`` (their log-on slots stay the whole run's)
        self.part = (0, 1)
        #: called once the connections are open, before the loop starts: blocks until every
        #: driver process is ready and returns the epoch at which all of them start
        self.wait_start: Callable[[], float] | None = None

    # -- the dialog steps (run in a work-process thread) --------------------------------------
    def _run_step(self, s: Session, u: UserState, step: int) -> None:
        d = u.data
        if step == 0:
            top = s.query(q.logon(u.lo, u.hi)).rows[0][0]
            u.next_seq = 0 if top is None else int(top) - u.lo + 1
            if u.next_seq >= u.hi - u.lo:
                raise DriversError(f"user {d.user} has used every order key of its block")
            return
        if step == 1:
            s.query(q.initial_screen(d.custkey))
        elif step == 2:
            s.query(q.credit_check(d.custkey, u.lo, u.hi))
        elif step == 3:
            prices = {int(r[0]): r[2] for r in s.query(q.item_prices(d.parts)).rows}
            best: dict[int, tuple[int, int]] = {}
            for part, supp, avail, _ in s.query(q.availability(d.parts)).rows:
                if int(part) not in best or int(avail) > best[int(part)][1]:
                    best[int(part)] = (int(supp), int(avail))
            u.orderkey = u.lo + u.next_seq
            u.order_day = u.next_seq % 1000
            u.lines = []
            for i, part in enumerate(d.parts[: q.LINES_PER_ORDER]):
                qty = u.rng.randint(1, 10)
                price = round(float(prices[part]) * 100) * qty
                supp = best[part][0]
                u.lines.append(
                    q.Line(i + 1, part, supp, qty, price, u.rng.randint(0, 10), u.rng.randint(0, 8))
                )
        elif step == 4:
            u.next_seq += 1  # the key is spent even if the commit's answer is lost
            transaction(
                s, q.save_order(u.orderkey, d.custkey, d.user, u.lines, u.order_day), self.begin
            )
        elif step == 5:
            s.query(q.order_lines(u.orderkey))
            s.query(q.stock_of(u.lines))
        elif step == 6:
            transaction(s, q.save_delivery(u.orderkey, u.order_day), self.begin)
        elif step == 7:
            s.query(q.order_overview(u.orderkey))
        elif step == 8:
            s.query(q.item_detail(u.orderkey, u.rng.randint(1, q.LINES_PER_ORDER)))
        elif step == 9:
            s.query(q.order_lines(u.orderkey))
        elif step == 10:
            rows = s.query(q.stock_of(u.lines)).rows
            u.stock = {(int(p), int(sp)): int(a) for p, sp, a in rows}
        elif step == 11:
            s.execute(self.begin)
            try:  # the stock is read again inside the transaction: it decides replenishment
                rows = s.query(q.stock_of(u.lines)).rows
                u.stock = {(int(p), int(sp)): int(a) for p, sp, a in rows}
                for sql in q.post_goods_issue(u.orderkey, u.lines, u.stock, u.order_day + 3):
                    s.execute(sql)
                s.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(Exception):
                    s.execute("ROLLBACK")
                raise
        elif step == 12:
            s.query(q.customer_lookup(d.custkey))
        elif step == 13:
            s.query(q.order_list(d.custkey, self.engine.dialect))
        elif step == 14:
            s.query(q.order_lines(u.orderkey))
            u.invoice_cents = sum(q.line_total_cents(ln) for ln in u.lines)
        elif step == 15:
            transaction(s, q.save_invoice(u.orderkey, d.custkey, u.invoice_cents), self.begin)

    def run_loops(self, user: int, loops: int) -> None:
        """One user's log-on and ``loops`` whole loops, back to back on one connection
        (no think time, no pool): the workload's business logic without the simulation."""
        data = next(d for d in user_data(self.engine, self.prepared, user + 1) if d.user == user)
        lo, hi = self.prepared.key_range(user)
        u = UserState(data, lo, hi, random.Random(self.config.seed * 1_000_003 + user))
        s = self.engine.session()
        try:
            for step in [0] + list(range(1, q.STEPS_PER_LOOP + 1)) * loops:
                self._run_step(s, u, step)
        finally:
            s.close()

    # -- the event loop ----------------------------------------------------------------------
    def run(self) -> O2CProbe:
        cfg = self.config
        users = user_data(self.engine, self.prepared, cfg.users)
        w = self.pool
        node_sessions = [[n.session() for _ in range(w)] for n in self.nodes]
        # the first node's: this host's server
        pids = backend_ids(node_sessions[0], BackendProcess)
        tids = backend_ids(node_sessions[0], BackendThread)
        names = self.engine.facts.server_processes
        self.server_meter = server_cpu_meter(names, self.url, pids, tids)
        self.server_cpu_scope = attribution(names, self.url, pids, tids)
        start_epoch = time.time() if self.wait_start is None else self.wait_start()
        probe = O2CProbe(
            users=cfg.users,
            think=cfg.think,
            think_dist=cfg.think_dist,
            work_processes=w,
            rampup=cfg.rampup_seconds(),
            start=start_epoch,
            window_start=0.0,
            window_end=0.0,
            end=0.0,
            steps=self.rec,
            errors=self.errors,
        )
        executor = ThreadPoolExecutor(max_workers=w * len(self.nodes), thread_name_prefix="o2c-wp")
        try:
            asyncio.run(self._main(users, node_sessions, executor, probe))
        except KeyboardInterrupt:
            self.errors.append(f"{INTERRUPTED} (Ctrl-C or kill): the run stopped early")
        finally:
            self._close_journal()
            executor.shutdown(wait=True, cancel_futures=True)
            for sessions in node_sessions:
                for s in sessions:
                    s.close()
        probe.logged_on = self.logged_on
        if self.lags:
            lags = sorted(self.lags)
            probe.driver_lag_p50 = round(lags[len(lags) // 2], 6)
            probe.driver_lag_p99 = round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 6)
            probe.driver_lag_max = round(lags[-1], 6)
        if (
            self.fatal is not None
            or self.stopped_early
            or probe.end < probe.window_end
            or probe.window_end == 0
        ):
            probe.status = "failed" if self.fatal is not None else "partial"
        else:
            probe.status = "complete"
        return probe

    async def _main(
        self,
        users: list[UserData],
        node_sessions: list[list[Session]],
        executor: ThreadPoolExecutor,
        probe: O2CProbe,
    ) -> None:
        cfg = self.config
        loop = asyncio.get_running_loop()
        if (ahead := probe.start - time.time()) > 0:  # the driver processes' common start
            await asyncio.sleep(ahead)
        t0 = self.t0 = loop.time()
        probe.start = time.time()  # the epoch of t0: the steps' times are relative to it
        self._loop = loop
        pools: list[asyncio.Queue[Session]] = []
        for sessions in node_sessions:
            pool: asyncio.Queue[Session] = asyncio.Queue()
            for s in sessions:
                pool.put_nowait(s)
            pools.append(pool)
        rampup = cfg.rampup_seconds()
        window_start = rampup + cfg.think
        probe.window_start = window_start
        probe.window_end = window_start + cfg.window_seconds()
        planned_end = probe.window_end
        stop = self.stop = asyncio.Event()
        if self.fatal is not None:  # halted before the loop ran
            stop.set()
        n = len(self.nodes)
        tasks = [
            asyncio.create_task(
                self._user(
                    i, d, t0, pools[d.user % n], executor, node_sessions[d.user % n], stop,
                    self.nodes[d.user % n],
                )
            )
            for i, d in enumerate(users)
            if i % self.part[1] == self.part[0]
        ]  # fmt: skip
        reporter = asyncio.create_task(self._report(t0, probe, stop))
        if self.journal is not None:
            # line-buffered: a driver killed outright leaves every step it finished
            self._journal_file = safeio.open_append(self.journal, buffering=1)
        cpu0: tuple[float, tuple[int, int] | None] | None = None
        server: Callable[[], float] | None = None
        try:
            await self._sleep_until(t0 + window_start, stop)
            cpu0 = (time.process_time(), host_jiffies())
            server = self.server_meter() if self.server_meter is not None else None
            await self._sleep_until(t0 + probe.window_end, stop)
        finally:
            stopped_at = loop.time() - t0
            if stopped_at < planned_end - 1e-3:  # stopped early: the time really measured
                probe.window_end = max(window_start, stopped_at)
                self.errors.append(
                    "stopped early: the window was measured for "
                    f"{probe.window_end - window_start:.1f} s of the planned "
                    f"{planned_end - window_start:.1f} s"
                )
                self.stopped_early = True
            if cpu0 is not None:
                probe.driver_cpu_seconds = time.process_time() - cpu0[0]
                probe.host_cpu_busy = busy_share(cpu0[1], host_jiffies())
                probe.host_cpus = os.cpu_count()
                if server is not None:
                    probe.server_cpu_seconds = server()
            stop.set()
            # ramp-down: thinking users stop now, in-flight steps finish
            _done, pending = await asyncio.wait(tasks, timeout=RAMPDOWN_LIMIT)
            for t in pending:
                t.cancel()
            reporter.cancel()
            self._close_journal()
            probe.end = loop.time() - t0
            if pending:
                self.errors.append(f"ramp-down: {len(pending)} users did not finish their step")

    async def _sleep_until(self, when: float, stop: asyncio.Event) -> None:
        delay = when - asyncio.get_running_loop().time()
        if delay > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)

    def _close_journal(self) -> None:
        f, self._journal_file = self._journal_file, None
        if f is not None:
            f.flush()
            os.fsync(f.fileno())
            f.close()

    async def _report(self, t0: float, probe: O2CProbe, stop: asyncio.Event) -> None:
        if self.progress is None:
            return
        loop = asyncio.get_running_loop()
        seen = 0
        last = loop.time()
        while not stop.is_set():
            await asyncio.sleep(self.config.progress_interval)
            now = loop.time()
            n = len(self.rec.step)
            recent = range(seen, n)
            rts = [self.rec.wait[i] + self.rec.db[i] for i in recent]
            el = now - t0
            phase = (
                "ramp-up"
                if el < probe.window_start
                else "steady"
                if el < probe.window_end
                else "ramp-down"
            )
            self.progress(
                Progress(
                    phase,
                    el,
                    self.logged_on,
                    self.config.users,
                    len(rts) / max(now - last, 1e-9),
                    sum(rts) / len(rts) if rts else 0.0,
                    self.error_count,
                    max(0.0, probe.window_end - el),
                )
            )
            seen, last = n, now

    async def _user(
        self,
        index: int,
        data: UserData,
        t0: float,
        pool: asyncio.Queue[Session],
        executor: ThreadPoolExecutor,
        sessions: list[Session],
        stop: asyncio.Event,
        node: Engine | None = None,
    ) -> None:
        cfg = self.config
        loop = asyncio.get_running_loop()
        lo, hi = self.prepared.key_range(data.user)
        u = UserState(data, lo, hi, random.Random(cfg.seed * 1_000_003 + data.user))
        due = t0 + cfg.rampup_seconds() * self.slots[index] / cfg.users  # log-on time
        first = True
        while True:
            delay = due - loop.time()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=delay)
            if stop.is_set():
                return
            self.lags.append(loop.time() - due)  # the driver's own lag: due, but not yet awake
            step = 0 if u.needs_logon else u.step
            session = await pool.get()
            if self.fatal is not None:  # the server went away: no step starts on it any more
                pool.put_nowait(session)
                return
            got = loop.time()
            ok = 1
            try:
                await loop.run_in_executor(executor, self._run_step, session, u, step)
            except ConnectionLostError as exc:
                ok = 0
                self._error(step, exc)
                try:
                    session = await self._replace(session, sessions, executor, node)
                except Fatal:
                    return
            except Exception as exc:  # any failure is the step's; the user goes on
                ok = 0
                self._error(step, exc)
            finally:
                pool.put_nowait(session)
            end = loop.time()
            rec = self.rec
            rec.step.append(step)
            rec.user.append(data.user)
            rec.due.append(round(due - t0, 6))
            rec.wait.append(round(got - due, 6))
            rec.db.append(round(end - got, 6))
            rec.ok.append(ok)
            if self._journal_file is not None:
                self._journal_file.write(
                    f"{step},{data.user},{rec.due[-1]},{rec.wait[-1]},{rec.db[-1]},{ok}\n"
                )
            if self.on_step is not None:
                self.on_step(step, u, ok, end)
            if ok:
                if step == 0:
                    u.needs_logon = False
                    if first:
                        self.logged_on += 1
                else:
                    u.step = u.step % q.STEPS_PER_LOOP + 1
            else:
                u.needs_logon, u.step = True, 1  # log on again, start a new order
            think = cfg.think
            if first and ok:
                first = False  # the log-on slots spread the users' phases over the loop
            elif cfg.think_dist == "exp" and cfg.think > 0:
                think = u.rng.expovariate(1 / cfg.think)
            due = end + think

    def halt(self, reason: str) -> None:
        """Stop the run from another thread, as a lost server does (the run is ``failed``):
        the workload running beside it (``drivers.mixed``) lost its server."""
        self._lose(reason)
        loop, stop = self._loop, self.stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to stop
                loop.call_soon_threadsafe(stop.set)

    def _lose(self, reason: str) -> None:
        """The run's one fatal error: a lost server is recorded once, however many users
        (each with a connection of its own) or a workload beside it saw it go."""
        if self.fatal is None:
            self.fatal = reason
            self.errors.append(reason)

    def _error(self, step: int, exc: BaseException) -> None:
        self.error_count += 1
        if len(self.errors) < 50:
            self.errors.append(f"step {step}: {exc}")

    async def _replace(
        self,
        broken: Session,
        sessions: list[Session],
        executor: ThreadPoolExecutor,
        node: Engine | None = None,
    ) -> Session:
        """A lost connection: a new one in its place, or the run stops (server gone)."""
        broken.close()
        loop = asyncio.get_running_loop()
        try:
            fresh = await loop.run_in_executor(executor, (node or self.engine).session)
        except DriversError as exc:
            self._lose(f"the server went away: {exc}")
            if self.stop is not None:
                self.stop.set()
            raise Fatal(self.fatal) from exc
        sessions[sessions.index(broken)] = fresh
        return fresh
