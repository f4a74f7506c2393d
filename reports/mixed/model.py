"""The mixed workload's result (``dbbench-mixed-result``): o2c users and TPC-H query streams
on one database at the same time, with the baselines measured alone.

Part of the result contract (like :mod:`reports.model`, standard library only): the drivers
write it, the reports read it. Each side keeps the fields it has alone: the o2c side is an
:class:`~reports.o2c.model.O2CProbe` (raw steps, columnar), the streams side a
:class:`~reports.tpch.model.RunResult` whose intervals are the throughput test's (``phase``
``throughput``). A stream runs its query sets back to back; set ``k`` (0, 1, ...) of stream
``s`` of ``S`` is recorded as stream number ``s + k * S`` (its Appendix-A order and its qgen
seed ``seed0 + s + k * S``), so every set has its own parameters and Q15 view name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dbbench.reports.model import ResultStatus, combined_status
from dbbench.reports.o2c.model import O2CProbe, UsersResult
from dbbench.reports.tpch.model import RunResult

MIXED_SCHEMA_NAME = "dbbench-mixed-result"
MIXED_SCHEMA_VERSION = 1

#: the o2c steps journal of point ``k`` beside the result (columns :data:`O2C_JOURNAL_COLUMNS`)
MIXED_STEPS_FILE = "o2c-steps-{k}.csv"

PointRole = Literal["mixed", "o2c-only", "streams-only"]


@dataclass
class Freshness:
    """The freshness probe of one point: on a connection of its own, a read every
    ``interval`` seconds of the invoices the o2c users posted and were told were committed.
    Per invoice (columnar): when its commit was acknowledged and when the first read that
    saw it started (None: never seen), in seconds since the point's start; the lag is the
    difference. ``stale_reads`` counts (read, invoice) pairs where a read that started
    after the acknowledgement did not see it (a replication lag, or a snapshot older than
    the commit)."""

    interval: float
    acked: list[float] = field(default_factory=list)
    seen: list[float | None] = field(default_factory=list)
    reads: int = 0
    stale_reads: int = 0
    read_seconds: list[float] = field(default_factory=list)  # each read's own duration
    errors: list[str] = field(default_factory=list)
    node: str | None = None  # the node it read on (a cluster: the analytics node)


@dataclass
class MixedPoint:
    """One measured point: ``users`` o2c users and ``streams`` query streams at once
    (``mixed``), or one side alone (``o2c-only``: streams 0; ``streams-only``: users 0).
    ``window_start``/``window_end``/``end`` are seconds since ``start`` (Unix epoch), the
    o2c probe's own window where there is one."""

    role: PointRole
    users: int
    streams: int
    start: float
    window_start: float
    window_end: float
    end: float = 0.0
    status: ResultStatus = "partial"
    o2c: O2CProbe | None = None
    tpch: RunResult | None = None
    freshness: Freshness | None = None
    refresh: bool = False
    errors: list[str] = field(default_factory=list)
    #: the driver process's CPU seconds in the window (both sides and the probe)
    driver_cpu_seconds: float | None = None
    #: ``baseline`` points read from another result file: where they came from
    source: str | None = None

    @classmethod
    def o2c_only(cls, probe: O2CProbe, source: str | None = None) -> MixedPoint:
        """An o2c run's probe as an ``o2c-only`` point (a baseline another file holds)."""
        point = cls("o2c-only", probe.users, 0, 0.0, 0.0, 0.0, status=probe.status, source=source)
        point.take_o2c(probe)
        return point

    def take_o2c(self, probe: O2CProbe) -> None:
        """``probe`` as the point's o2c side: the point's start, window, end and driver CPU
        are the probe's own, and its errors are the point's too."""
        self.o2c = probe
        self.start, self.end = probe.start, probe.end
        self.window_start, self.window_end = probe.window_start, probe.window_end
        self.driver_cpu_seconds = probe.driver_cpu_seconds
        self.errors += probe.errors


def mixed_status(points: list[MixedPoint]) -> ResultStatus:
    """``complete`` when every point is, ``failed`` when there is none or every one failed."""
    return combined_status(p.status for p in points)


@dataclass
class MixedResult(
    UsersResult,
    schema_name=MIXED_SCHEMA_NAME,
    schema_version=MIXED_SCHEMA_VERSION,
    title="dbbench mixed result",
):
    """A mixed ``run`` (the mixed point and its two baselines) or a ``frontier`` (a grid of
    users x streams, with each users count's o2c-only and each stream count's streams-only
    point)."""

    kind: Literal["run", "frontier"]
    points: list[MixedPoint] = field(default_factory=list)
    # status (the envelope's): derived from the points whenever written (:func:`mixed_status`)

    def parts_status(self) -> ResultStatus:
        return mixed_status(self.points)

    def o2c_probes(self) -> list[O2CProbe]:
        return [p.o2c for p in self.points if p.o2c is not None]

    def check(self) -> None:
        super().check()
        for n, p in enumerate(self.points):
            where = f"points[{n}]"
            if p.users < 0 or p.streams < 0:
                raise ValueError(f"{where}: users and streams must not be negative")
            if p.window_end < p.window_start:
                raise ValueError(f"{where}: window_end is before window_start")
            if (p.o2c is None) != (p.users == 0):
                raise ValueError(f"{where}: an o2c side exactly when there are users")
            if (p.tpch is None) != (p.streams == 0):
                raise ValueError(f"{where}: a streams side exactly when there are streams")
            f = p.freshness
            if f is not None and len(f.acked) != len(f.seen):
                raise ValueError(f"{where}.freshness: the columns differ in length")
            if p.o2c is not None:
                p.o2c.steps.check(f"{where}.o2c.steps")
