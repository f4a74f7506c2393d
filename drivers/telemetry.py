"""Resource telemetry during a benchmark: CPU, memory, disk and network, sampled in a thread.

A :class:`Sampler` reads the operating system's cumulative counters through psutil once per
interval (1 s by default) and keeps the differences as rates, column by column, in a
:class:`reports.model.Telemetry`. One sample costs a few hundred microseconds of CPU, so
the sampler can stay on for every run; the CPU time it used is recorded beside the samples.
Without psutil (the ``telemetry`` extra) the result says so instead of holding samples.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import time
from typing import Any

from dbbench.drivers.url import parse_url
from dbbench.reports.model import Telemetry

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


class _Counters:
    """The cumulative counters of one instant."""

    def __init__(self) -> None:
        assert psutil is not None
        self.t = time.time()
        self.mono = time.monotonic()
        self.cpu = psutil.cpu_times()
        self.cores = psutil.cpu_times(percpu=True)
        self.disk = psutil.disk_io_counters()
        self.net = psutil.net_io_counters()
        memory = psutil.virtual_memory()
        self.mem_used = int(memory.total - memory.available)


def _cpu_split(new: Any, old: Any) -> tuple[float, float, float, float]:
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


def _rate(new: Any, old: Any, name: str, seconds: float) -> float:
    if new is None or old is None or seconds <= 0:
        return 0.0
    return float(max(getattr(new, name) - getattr(old, name), 0)) / seconds


class Sampler:
    """Samples the machine every ``interval`` seconds on a daemon thread until stopped."""

    def __init__(self, interval: float = DEFAULT_INTERVAL, scope: str = "host") -> None:
        if interval <= 0:
            raise ValueError(f"telemetry interval must be positive, not {interval}")
        self.data = Telemetry(interval=interval, scope="client" if scope == "client" else "host")
        if scope == "client":
            self.data.note = (
                "the database runs on another host: the samples cover dbbench's client only"
            )
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
        spent = 0.0
        try:
            begin = time.thread_time()
            previous = _Counters()
            spent += time.thread_time() - begin
            stopping = False
            while not stopping:
                stopping = self._stop.wait(self.data.interval)
                begin = time.thread_time()
                current = _Counters()
                self._append(previous, current)
                previous = current
                spent += time.thread_time() - begin
                with self._lock:
                    self.data.overhead_seconds = spent
        except Exception as exc:  # telemetry must never stop a benchmark
            with self._lock, contextlib.suppress(Exception):
                self.data.note = f"sampling stopped early: {type(exc).__name__}: {exc}"

    def _append(self, old: _Counters, new: _Counters) -> None:
        seconds = new.mono - old.mono
        if seconds <= 0:
            return
        user, system, iowait, _ = _cpu_split(new.cpu, old.cpu)
        per_core = [
            round(_cpu_split(n, o)[3], 1) for n, o in zip(new.cores, old.cores, strict=False)
        ]
        d = self.data
        with self._lock:
            d.t.append(round(new.t, 3))
            d.cpu_user.append(round(user, 1))
            d.cpu_system.append(round(system, 1))
            d.cpu_iowait.append(round(iowait, 1))
            d.cpu_per_core.append(per_core)
            d.mem_used.append(new.mem_used)
            d.disk_read_bps.append(round(_rate(new.disk, old.disk, "read_bytes", seconds)))
            d.disk_write_bps.append(round(_rate(new.disk, old.disk, "write_bytes", seconds)))
            d.disk_read_iops.append(round(_rate(new.disk, old.disk, "read_count", seconds), 1))
            d.disk_write_iops.append(round(_rate(new.disk, old.disk, "write_count", seconds), 1))
            d.net_sent_bps.append(round(_rate(new.net, old.net, "bytes_sent", seconds)))
            d.net_recv_bps.append(round(_rate(new.net, old.net, "bytes_recv", seconds)))
