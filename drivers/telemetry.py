"""Resource telemetry during a benchmark: CPU, memory, disk and network, sampled in a thread.

A :class:`Sampler` reads the operating system's cumulative counters through psutil once per
interval (1 s by default) and keeps the differences as rates, column by column, in a
:class:`reports.tpch.model.Telemetry`. One sample costs a few hundred microseconds of CPU, so
the sampler can stay on for every run; the CPU time it used is recorded beside the samples.
Without psutil (the ``telemetry`` extra) the result says so instead of holding samples.
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import ConnectionLostError
from dbbench.drivers.url import parse_url
from dbbench.reports.tpch.model import Telemetry

DEFAULT_INTERVAL = 1.0
_LOOPBACK = frozenset({None, "", "localhost", "127.0.0.1", "::1", "[::1]"})

try:  # an optional extra: a run without it is still a run
    import psutil
except ImportError:  # pragma: no cover - the test environment installs the extra
    psutil = None


def engine_scope(url: str) -> str:
    """``host`` when the engine runs on this machine (or is embedded), else ``client``."""
    try:
        host = parse_url(url).host
    except Exception:
        return "host"  # an unparsable URL never reaches a run; no reason to stop here
    return "host" if host in _LOOPBACK else "client"


@dataclass
class EngineProbe:
    """The engine's own counters, read on a session of the sampler's own: one cheap query.

    Columns named in ``cumulative`` are ever-growing counters, stored as rates per second;
    the others are levels (bytes in use), stored as read.

    The session follows the engine through a reopen (:meth:`Engine.reopen`, before a study's
    cold pass), which ends it: DuckDB's file closed with its cursors, PostgreSQL's server
    restarted. Once counters were read, a session that fails is dropped and the reading
    tried again at once on a new session, which reaches the engine as it is now; while the
    engine cannot be reached (its server restarting) :meth:`read` returns None and the next
    sample tries again. A failure before any reading, or of the query on a new session
    (other than a lost connection), is final: it is raised.
    """

    engine: Engine
    sql: str
    cumulative: frozenset[str] = frozenset()
    _session: Session | None = None
    _last: dict[str, float] = field(default_factory=dict)
    #: counters were read once: a failure after that is the engine going away (a reopen)
    _read_once: bool = False
    #: the last reading was on a new session after another one ended: the engine may have
    #: been restarted, its cumulative counters too (that reading is their new base)
    renewed: bool = False

    def read(self) -> dict[str, float] | None:
        self.renewed = False
        if self._session is not None:
            try:
                return self._read(self._session)
            except Exception:
                if not self._read_once:
                    raise
                self.close()  # its server restarted, or the engine reopened and closed it
        try:
            self._session = self.engine.session()
        except Exception:
            if not self._read_once:
                raise
            return None  # the engine cannot be reached now: tried again at the next sample
        self.renewed = self._read_once
        try:
            return self._read(self._session)
        except ConnectionLostError:
            if not self._read_once:
                raise
            self.close()  # lost at once: the server going down
            return None

    def _read(self, session: Session) -> dict[str, float]:
        out = session.query(self.sql)
        self._read_once = True
        return {c: float(v or 0) for c, v in zip(out.columns, out.rows[0], strict=True)}

    def close(self) -> None:
        if self._session is not None:
            with contextlib.suppress(Exception):
                self._session.close()
            self._session = None


def engine_probe(engine: Engine) -> EngineProbe | None:
    """The counters the engine declares it exposes cheaply (``facts.counters``: e.g.
    PostgreSQL's pg_stat_database, DuckDB's memory); None when it declares none."""
    counters = engine.facts.counters
    if counters is None:
        return None
    return EngineProbe(engine, counters.sql, counters.cumulative)


class _Counters:
    """The cumulative counters of one instant."""

    def __init__(self) -> None:
        assert psutil is not None
        self.t = time.time()
        self.mono = time.monotonic()
        self.cores = psutil.cpu_times(percpu=True)
        # the machine's figure is the cores' sum from the very same reading, so that the
        # per-core split always averages to it (two readings drift apart on a busy machine)
        self.cpu = _summed(self.cores) if self.cores else psutil.cpu_times()
        self.disk = psutil.disk_io_counters()
        self.net = psutil.net_io_counters()
        memory = psutil.virtual_memory()
        self.mem_used = int(memory.total - memory.available)
        self.load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        own = psutil.Process().cpu_times()
        self.kit = own.user + own.system  # every thread of this process, an embedded engine's


def _summed(cores: list[Any]) -> Any:
    """Field-wise sum of per-core CPU times, as the same named tuple type."""
    first = cores[0]
    return type(first)(*(sum(getattr(c, f) for c in cores) for f in first._fields))


def cpu_split(new: Any, old: Any) -> tuple[float, float, float, float]:
    """(user, system, iowait, busy) percentages of the CPU time between two readings."""
    fields = new._fields
    deltas = {f: max(getattr(new, f) - getattr(old, f), 0.0) for f in fields}
    # guest time is already counted in user time on Linux
    total = sum(v for f, v in deltas.items() if f not in ("guest", "guest_nice"))
    if total <= 0:
        return 0.0, 0.0, 0.0, 0.0
    user = deltas.get("user", 0.0) + deltas.get("nice", 0.0)
    system = deltas.get("system", 0.0) + deltas.get("irq", 0.0) + deltas.get("softirq", 0.0)
    iowait = deltas.get("iowait", 0.0)
    idle = deltas.get("idle", 0.0) + iowait
    return (
        100.0 * user / total,
        100.0 * system / total,
        100.0 * iowait / total,
        100.0 * (total - idle) / total,
    )


def steal_percent(new: Any, old: Any) -> float:
    """CPU stolen by the hypervisor between two readings, % of all cores' time."""
    total = sum(new) - sum(old)
    stolen = getattr(new, "steal", 0.0) - getattr(old, "steal", 0.0)
    return 100.0 * stolen / total if total > 0 else 0.0


def _rate(new: Any, old: Any, name: str, seconds: float) -> float:
    if new is None or old is None or seconds <= 0:
        return 0.0
    return float(max(getattr(new, name) - getattr(old, name), 0)) / seconds


class Sampler:
    """Samples the machine every ``interval`` seconds on a daemon thread until stopped."""

    def __init__(
        self,
        interval: float = DEFAULT_INTERVAL,
        scope: str = "host",
        probe: EngineProbe | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError(f"telemetry interval must be positive, not {interval}")
        self.data = Telemetry(interval=interval, scope="client" if scope == "client" else "host")
        if scope == "client":
            self.data.note = (
                "the database runs on another host: the samples cover dbbench's client only"
            )
        self.probe = probe
        self._note = self.data.note  # what any later note is added to
        self._engine_columns: list[str] = []  # the engine's counters, from the first reading
        self._engine_gaps = 0  # samples without the engine's counters (it was reopened)
        self._first: _Counters | None = None
        self._spent = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if psutil is None:
            self.data.source = ""
            self.data.note = (
                "not sampled: install the telemetry extra (pip install dbbench[telemetry])"
            )
        else:
            self.data.cores = psutil.cpu_count(logical=True)

    @property
    def available(self) -> bool:
        return psutil is not None

    def start(self) -> Sampler:
        if not self.available or self._thread is not None:
            return self
        begin = time.thread_time()
        self._first = _Counters()  # here, not on the thread: the first span starts now
        self._spent = time.thread_time() - begin
        self.data.t_start = round(self._first.t, 3)
        self._thread = threading.Thread(target=self._loop, name="dbbench-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> Telemetry:
        """Stop sampling (one last sample is taken) and return everything sampled."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return self.snapshot()

    def snapshot(self) -> Telemetry:
        """A copy of the samples so far (safe while the thread runs)."""
        with self._lock:
            return copy.deepcopy(self.data)

    def __enter__(self) -> Sampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _loop(self) -> None:
        spent = self._spent
        try:
            begin = time.thread_time()
            assert self._first is not None
            previous = self._first
            engine_before = self._probe(None, 0.0)
            spent += time.thread_time() - begin
            stopping = False
            while not stopping:
                stopping = self._stop.wait(self.data.interval)
                begin = time.thread_time()
                current = _Counters()
                self._append(previous, current)
                engine_before = self._probe(engine_before, current.mono - previous.mono)
                previous = current
                spent += time.thread_time() - begin
                with self._lock:
                    self.data.overhead_seconds = spent
        except Exception as exc:  # telemetry must never stop a benchmark
            with self._lock, contextlib.suppress(Exception):
                self.data.note = f"sampling stopped early: {type(exc).__name__}: {exc}"
        finally:
            if self.probe is not None:
                self.probe.close()

    def _probe(self, before: dict[str, float] | None, seconds: float) -> dict[str, float] | None:
        """Read the engine's counters and append them (rates for cumulative ones); on a
        final failure probing stops for good, with the reason in ``note``. Every counter
        keeps one value per sample: where the engine could not be read (reopened, its server
        restarting) they hold 0, and so do the cumulative ones in the first reading after
        (their new base: a restarted server may have reset them); ``note`` counts those."""
        probe = self.probe
        if probe is None:
            return None
        try:
            now = probe.read()
        except Exception as exc:
            probe.close()
            self.probe = None
            with self._lock:
                text = " ".join(str(exc).split())[:200]
                self.data.note = self._noted(
                    f"engine counters stopped: {type(exc).__name__}: {text}"
                )
            return None
        if not self._engine_columns:
            if now is not None:
                self._engine_columns = list(now)  # the first reading: the first rates' base
            return now
        base = now is None or probe.renewed  # no rates in this sample: a new base
        with self._lock:
            if now is None or (base and probe.cumulative):
                self._engine_gaps += 1
                n = self._engine_gaps
                self.data.note = self._noted(
                    f"engine counters 0 in {n} sample{'s' * (n != 1)} around a reopen of the "
                    "engine (not readable, or the new base of their rates)"
                )
            for name in self._engine_columns:
                value = 0.0 if now is None else now.get(name, 0.0)
                if name in probe.cumulative:
                    if base or before is None or seconds <= 0:
                        value = 0.0
                    else:
                        value = round(max(value - before.get(name, value), 0.0) / seconds, 1)
                self.data.engine.setdefault(name, []).append(value)
        return now

    def _noted(self, text: str) -> str:
        return f"{self._note}; {text}" if self._note else text

    def _append(self, old: _Counters, new: _Counters) -> None:
        seconds = new.mono - old.mono
        if seconds <= 0:
            return
        cores = [cpu_split(n, o) for n, o in zip(new.cores, old.cores, strict=False)]
        if cores:  # the machine is its cores' equal-weight average: the split averages to it
            # (a core's own tick count drifts from its neighbours' by a tick or two)
            user, system, iowait = (sum(c[k] for c in cores) / len(cores) for k in range(3))
        else:
            user, system, iowait, _ = cpu_split(new.cpu, old.cpu)
        d = self.data
        with self._lock:
            d.t.append(round(new.t, 3))
            d.cpu_user.append(round(user, 1))
            d.cpu_system.append(round(system, 1))
            d.cpu_iowait.append(round(iowait, 1))
            d.cpu_per_core.append([round(c[3], 1) for c in cores])
            d.cpu_core_user.append([round(c[0], 1) for c in cores])
            d.cpu_core_system.append([round(c[1], 1) for c in cores])
            d.cpu_core_iowait.append([round(c[2], 1) for c in cores])
            d.mem_used.append(new.mem_used)
            d.load1.append(round(new.load1, 2))
            d.cpu_steal.append(round(steal_percent(new.cpu, old.cpu), 1))
            ncores = len(new.cores) or (os.cpu_count() or 1)
            d.cpu_kit.append(round(100.0 * (new.kit - old.kit) / (seconds * ncores), 1))
            d.disk_read_bps.append(round(_rate(new.disk, old.disk, "read_bytes", seconds)))
            d.disk_write_bps.append(round(_rate(new.disk, old.disk, "write_bytes", seconds)))
            d.disk_read_iops.append(round(_rate(new.disk, old.disk, "read_count", seconds), 1))
            d.disk_write_iops.append(round(_rate(new.disk, old.disk, "write_count", seconds), 1))
            d.net_sent_bps.append(round(_rate(new.net, old.net, "bytes_sent", seconds)))
            d.net_recv_bps.append(round(_rate(new.net, old.net, "bytes_recv", seconds)))
