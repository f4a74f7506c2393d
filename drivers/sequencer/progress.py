"""Live progress of a benchmark, as shared state that any renderer can poll.

The sequencer only updates counters; the command line decides how to show them (a rich
live table on a terminal, plain periodic lines otherwise). Library code never prints. During
the load test the counters are the loader's progress sink (``dbgen.progress.ProgressSink``,
the one progress protocol of the kit).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

#: The phase in which a run generates its refresh sets, ahead of (outside) the timed tests.
REFRESH_SETS = "refresh-set generation"


@dataclass
class ProgressSnapshot:
    """A consistent copy of the progress at one instant."""

    phase: str
    positions: dict[int, int]  # stream -> queries finished in this phase
    queries_done: int
    queries_total: int
    refresh_done: int
    refresh_total: int
    phase_elapsed: float
    total_elapsed: float
    eta: float | None  # seconds left in this phase, once something finished
    failures: int = 0
    load_rows: tuple[int, int] = (0, 0)  # rows loaded, rows expected (load phase)


@dataclass
class RunProgress:
    """Thread-safe counters of the current phase; one object per benchmark."""

    phase: str = "starting"
    positions: dict[int, int] = field(default_factory=dict)
    queries_done: int = 0
    queries_total: int = 0
    refresh_done: int = 0
    refresh_total: int = 0
    failures: int = 0
    load_done: int = 0  # rows loaded (load phase)
    load_total: int = 0  # rows expected (load phase)
    durations: list[tuple[str, float]] = field(default_factory=list)  # finished phases
    _started: float = field(default_factory=time.perf_counter)
    _phase_started: float = field(default_factory=time.perf_counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start_phase(self, name: str, streams: list[int], queries: int, refresh: int) -> None:
        """A new phase begins; the one before it ends now (its wall time is recorded)."""
        with self._lock:
            self._close_phase()
            self.phase = name
            self.positions = dict.fromkeys(streams, 0)
            self.queries_done, self.queries_total = 0, queries
            self.refresh_done, self.refresh_total = 0, refresh
            self.load_done = self.load_total = 0
            self._phase_started = time.perf_counter()

    def end_phase(self) -> None:
        """The current phase is over and no other follows (yet)."""
        with self._lock:
            self._close_phase()
            self.phase = "done"
            self._phase_started = time.perf_counter()

    def _close_phase(self) -> None:
        if self.phase not in ("starting", "done"):
            self.durations.append((self.phase, time.perf_counter() - self._phase_started))

    def phase_seconds(self) -> tuple[list[tuple[str, float]], float]:
        """The finished phases with their wall seconds, in order, and the seconds since
        this object was created (the difference is time between phases)."""
        with self._lock:
            return list(self.durations), time.perf_counter() - self._started

    # The loader's progress sink (dbgen.progress.ProgressSink), called from loading threads.

    def start(self, total_rows: int, outputs: int) -> None:
        with self._lock:
            self.load_done, self.load_total = 0, total_rows

    def advance(self, rows: int, nbytes: int) -> None:
        with self._lock:
            self.load_done += rows

    def output_done(self, name: str) -> None:
        return None

    def finish(self) -> None:
        return None

    def query_done(self, stream: int, ok: bool) -> None:
        with self._lock:
            self.positions[stream] = self.positions.get(stream, 0) + 1
            self.queries_done += 1
            self.failures += 0 if ok else 1

    def refresh_pair_done(self, ok: bool) -> None:
        with self._lock:
            self.refresh_done += 1
            self.failures += 0 if ok else 1

    def snapshot(self) -> ProgressSnapshot:
        with self._lock:
            now = time.perf_counter()
            elapsed = now - self._phase_started
            units_total = self.queries_total + 2 * self.refresh_total
            units_done = self.queries_done + 2 * self.refresh_done
            if self.load_total:
                units_done, units_total = self.load_done, self.load_total
            eta = None
            if units_done and units_total:
                eta = max(0.0, elapsed / units_done * (units_total - units_done))
            return ProgressSnapshot(
                phase=self.phase,
                positions=dict(self.positions),
                queries_done=self.queries_done,
                queries_total=self.queries_total,
                refresh_done=self.refresh_done,
                refresh_total=self.refresh_total,
                phase_elapsed=elapsed,
                total_elapsed=now - self._started,
                eta=eta,
                failures=self.failures,
                load_rows=(self.load_done, self.load_total),
            )
