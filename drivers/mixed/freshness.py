"""Freshness: how soon an analytical read on another connection sees an o2c commit.

The o2c simulator tells the probe (its ``on_step`` hook, in its event loop) each invoice
whose commit was acknowledged to its user (step 15, "save invoice and posting": the order
billed and its lines flagged in one transaction). A thread of the probe, on a connection of
its own (on a cluster: the analytics node's), reads every ``interval`` seconds the revenue
of the invoices acknowledged but not yet seen: a join of orders and lineitem, aggregated per
order, that only counts an invoice whose both changes it sees. An invoice's lag is from its
acknowledgement to the start of the first read that saw it (so, on one node with snapshot
reads, at most about the interval); a read that started after an acknowledgement and did
not see it is a stale read (a replica behind, or a snapshot older than the commit).
"""

from __future__ import annotations

import contextlib
import threading
import time

from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import ConnectionLostError, DriversError, one_line
from dbbench.drivers.o2c.simulator import UserState
from dbbench.queries import o2c as q
from dbbench.reports.mixed.model import Freshness

#: The step whose commit posts an invoice.
INVOICE_STEP = 15
#: At most this many invoices in one read (the oldest first); the rest wait a read.
MAX_KEYS = 500
#: Errors kept in the result (the count is in the reads that failed).
MAX_ERRORS = 20


def revenue_sql(keys: list[int]) -> str:
    """The probe's read: the billed revenue of the given orders, per order."""
    ins = ", ".join(str(k) for k in keys)
    return (
        "SELECT o_orderkey, SUM(l_extendedprice * (1 - l_discount)) FROM orders "
        "JOIN lineitem ON l_orderkey = o_orderkey "
        f"WHERE o_orderkey IN ({ins}) AND o_shippriority = {q.STAGE_BILLED} "
        "AND l_returnflag = 'A' GROUP BY o_orderkey"
    )


class FreshnessProbe:
    """The probe of one point; :meth:`posted` is the simulator's ``on_step`` hook."""

    def __init__(self, engine: Engine, interval: float, node: str | None = None) -> None:
        if not interval > 0:
            raise DriversError(f"the freshness interval must be positive, not {interval:g} s")
        self.engine = engine
        self.result = Freshness(interval=interval, node=node)
        self._pending: dict[int, float] = {}  # order key -> acknowledged (monotonic)
        self._done: list[tuple[float, float | None]] = []  # (acknowledged, seen) monotonic
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._session: Session | None = None

    def posted(self, step: int, user: UserState, ok: int, end: float) -> None:
        """The simulator's hook: an acknowledged invoice is pending until a read sees it."""
        if step == INVOICE_STEP and ok:
            self.acknowledged(user.orderkey, end)

    def acknowledged(self, orderkey: int, end: float) -> None:
        """An invoice acknowledged at ``end`` (``time.monotonic()``; from a driver process
        of the same host too) is pending until a read sees it."""
        with self._lock:
            self._pending[orderkey] = end

    def start(self) -> None:
        self._session = self.engine.session()
        self._thread = threading.Thread(target=self._loop, name="dbbench-freshness", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.result.interval):
            if not self._read():
                return

    def _read(self) -> bool:
        """One read of the pending invoices; False when the probe cannot go on."""
        with self._lock:
            pending = sorted(self._pending.items(), key=lambda kv: kv[1])[:MAX_KEYS]
        if not pending or self._session is None:
            return True
        start = time.monotonic()
        try:
            rows = self._session.query(revenue_sql([k for k, _ in pending])).rows
        except Exception as exc:
            self._error(exc)
            if isinstance(exc, ConnectionLostError):
                return self._reconnect()
            return True
        end = time.monotonic()
        seen = {int(r[0]) for r in rows}
        f = self.result
        f.reads += 1
        f.read_seconds.append(round(end - start, 6))
        with self._lock:
            for key, acked in pending:
                if key in seen:
                    self._done.append((acked, start))
                    self._pending.pop(key, None)
                else:
                    f.stale_reads += 1  # the read started after the acknowledgement
        return True

    def _reconnect(self) -> bool:
        if self._session is not None:
            with contextlib.suppress(Exception):
                self._session.close()
        try:
            self._session = self.engine.session()
        except Exception as exc:
            self._session = None
            self._error(exc)
            return False
        return True

    def _error(self, exc: BaseException) -> None:
        if len(self.result.errors) < MAX_ERRORS:
            self.result.errors.append(f"freshness read: {one_line(exc)}")

    def stop(self, t0: float | None) -> Freshness:
        """One last read (what was acknowledged just before the end), then the result, in
        seconds since ``t0`` (the point's start, monotonic); None: nothing was measured."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            if not self._thread.is_alive():
                self._read()
        if self._session is not None:
            with contextlib.suppress(Exception):
                self._session.close()
            self._session = None
        with self._lock:
            done = self._done + [(acked, None) for acked in self._pending.values()]
            self._pending.clear()
        base = t0 if t0 is not None else min((a for a, _ in done), default=0.0)
        done.sort(key=lambda d: d[0])
        f = self.result
        f.acked = [round(a - base, 6) for a, _ in done]
        f.seen = [None if s is None else round(s - base, 6) for _, s in done]
        return f
