"""One point of a mixed study: o2c users and query streams at once, or one side alone.

The timeline is o2c's (``drivers.o2c.simulator``): the users log on over the ramp-up, the
measured window starts one think time after the last log-on and is a whole number of loops
long. The query streams start with the users and run until the window has ended (their
running queries are then cancelled: they end outside the window and are recorded
``cancelled``); the freshness probe reads from the start to the end. A streams-only point
keeps the same timeline with no user, so its window is as long as the mixed point's.
A lost server on either side stops both (one line in the point's errors).

With ``--driver-processes N|auto`` the users are driven by that many driver processes
(``drivers.o2c.processes``) while the streams and the freshness probe stay in this process:
each driver process tells it of every acknowledged invoice and a lost server on the
streams' side halts them all (:class:`~dbbench.drivers.o2c.processes.Beside`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbbench.drivers.errors import DriversError
from dbbench.drivers.journal import Journal
from dbbench.drivers.lifecycle import RunScope
from dbbench.drivers.mixed.freshness import INVOICE_STEP, FreshnessProbe
from dbbench.drivers.mixed.streams import QueryStreams
from dbbench.drivers.o2c.processes import Beside, resolve, run_processes
from dbbench.drivers.o2c.setup import Prepared
from dbbench.drivers.o2c.simulator import INTERRUPTED, Progress, RunConfig, Simulator
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.url import redact
from dbbench.reports.mixed.model import MixedPoint, PointRole
from dbbench.reports.model import ResultStatus


@dataclass(frozen=True)
class PointSpec:
    """What one point runs: ``users`` o2c users (0: none) and ``streams`` query streams."""

    role: PointRole
    users: int
    streams: int

    @property
    def label(self) -> str:
        if self.role == "o2c-only":
            return f"o2c only: {self.users:,} users"
        if self.role == "streams-only":
            return f"streams only: {self.streams} stream{'s' if self.streams != 1 else ''}"
        return (
            f"mixed: {self.users:,} users + {self.streams} stream{'s' if self.streams != 1 else ''}"
        )


@dataclass(frozen=True)
class Settings:
    """What every point of a study shares: the o2c dialog (``config.users`` is replaced per
    point), the streams' scale factor, query timeout, seed0 and refresh, the freshness
    probe's interval (0: off), the analytics node (an index into the run's engines: the
    streams and the probe run there; the users round-robin over all of them)."""

    config: RunConfig
    sf: float
    seed0: int
    query_timeout: float | None = None
    refresh: bool = False
    freshness: float = 0.25
    analytics: int = 0

    def o2c(self, users: int) -> RunConfig:
        return RunConfig(**{**self.config.__dict__, "users": users})

    def options(self, streams: int) -> RunOptions:
        return RunOptions(
            sf=self.sf, streams=streams, runs=1, seed=self.seed0,
            query_timeout=self.query_timeout, telemetry_interval=None, plans="off",
        )  # fmt: skip


class Interrupted(Exception):
    """Ctrl-C or ``kill`` stopped a point: the study writes what it has and stops."""


def interrupted(point: MixedPoint) -> bool:
    return any(e.startswith(INTERRUPTED) for e in point.errors)


def run_point(
    scope: RunScope,
    prepared: Prepared,
    spec: PointSpec,
    settings: Settings,
    *,
    number: int,
    journal: Journal,
    steps_journal: Path,
    shown: Callable[[Progress], None] | None = None,
) -> MixedPoint:
    """Measure one point (see the module); ``number`` names its streams' run in the journal."""
    engine, url = scope.engine, scope.url
    nodes = scope.engines if len(scope.engines) > 1 else None
    analytics = scope.engines[settings.analytics]
    cfg = settings.o2c(max(spec.users, 1))
    sim: Simulator | None = None
    processes, why = 1, ""
    if spec.users:
        sim = Simulator(engine, prepared, cfg, shown, steps_journal, url, nodes)
        processes, why = resolve(engine, cfg, sim.pool)
    beside = Beside(None, INVOICE_STEP) if processes > 1 else None
    streams: QueryStreams | None = None
    if spec.streams:
        halt = sim.halt if sim is not None else None
        halt = beside.halt if beside is not None else halt
        streams = QueryStreams(
            analytics, settings.options(spec.streams), journal, number=number,
            seed0=settings.seed0, refresh=settings.refresh, on_fatal=halt,
        )  # fmt: skip
    fresh: FreshnessProbe | None = None
    if sim is not None and settings.freshness > 0:
        node = redact(scope.urls[settings.analytics]) if nodes else None
        fresh = FreshnessProbe(analytics, settings.freshness, node)
        sim.on_step = fresh.posted
        if beside is not None:
            beside.posted = fresh.acknowledged
    window_start = cfg.rampup_seconds() + cfg.think
    window_end = window_start + cfg.window_seconds()
    point = MixedPoint(
        role=spec.role, users=spec.users, streams=spec.streams, start=time.time(),
        window_start=window_start, window_end=window_end, refresh=settings.refresh,
    )  # fmt: skip
    t0 = time.monotonic()
    if fresh is not None:
        fresh.start()
    if streams is not None:
        streams.start()
    o2c_fatal: str | None = None
    try:
        if sim is not None and beside is not None:
            urls = scope.urls
            probe = run_processes(engine, urls, prepared, cfg, processes, steps_journal, beside)
            probe.driver_processes_chosen = why
            point.take_o2c(probe)
            t0 = time.monotonic() - (time.time() - probe.start)  # its start, on monotonic
            if probe.status == "failed":
                o2c_fatal = loss(point)
        elif sim is not None:
            probe = sim.run()
            if why and probe.driver_cpu_seconds is not None:  # auto chose one process
                probe.driver_cpu_by_process = [round(probe.driver_cpu_seconds, 3)]
            probe.driver_processes_chosen = why
            point.take_o2c(probe)
            t0 = sim.t0 if sim.t0 is not None else t0
            o2c_fatal = sim.fatal
        else:
            _streams_alone(point, t0, streams)
    finally:
        if streams is not None:
            streams.stop()
            point.tpch = streams.run
            point.errors += [e for e in streams.problems if e not in point.errors]
        if fresh is not None:
            point.freshness = fresh.stop(t0)
        point.errors = _one_loss(point.errors, o2c_fatal, streams)
    point.status = _status(point, o2c_fatal, streams)
    return point


#: How a point's errors begin that name the loss which stopped both sides.
LOSS_PREFIXES = ("the server went away", "the query streams stopped")


def loss(point: MixedPoint) -> str | None:
    """The one line naming what stopped both sides (a lost server), if anything did."""
    return next((e for e in point.errors if e.startswith(LOSS_PREFIXES)), None)


def _one_loss(errors: list[str], o2c_fatal: str | None, streams: QueryStreams | None) -> list[str]:
    """The errors once each, and a lost server in one line: each side that saw the loss
    names it and stops the other, so the second side's own line (its echo of the same
    loss) is dropped; the failed steps and queries stay recorded."""
    sides = (o2c_fatal, streams.fatal if streams else None)
    fatal = [f for f in sides if f]
    echo = set(fatal[1:]) - {fatal[0]} if fatal else set()
    kept: list[str] = []
    for e in errors:
        if e not in echo and e not in kept:
            kept.append(e)
    return kept


def _streams_alone(point: MixedPoint, t0: float, streams: QueryStreams | None) -> None:
    """The streams-only timeline: wait out the ramp-up and the window (Ctrl-C: stopped)."""
    if streams is None:
        raise DriversError("a point needs users or streams")
    stop = streams.ctx.stop
    cpu0: float | None = None
    try:
        if not stop.wait(max(0.0, t0 + point.window_start - time.monotonic())):
            cpu0 = time.process_time()
            stop.wait(max(0.0, t0 + point.window_end - time.monotonic()))
    except KeyboardInterrupt:
        point.errors.append(f"{INTERRUPTED} (Ctrl-C or kill): the run stopped early")
    finally:
        now = time.monotonic() - t0
        if cpu0 is not None:
            point.driver_cpu_seconds = time.process_time() - cpu0
        if now < point.window_end - 1e-3:
            planned = point.window_end - point.window_start
            point.window_end = max(point.window_start, now)
            point.errors.append(
                "stopped early: the window was measured for "
                f"{point.window_end - point.window_start:.1f} s of the planned {planned:.1f} s"
            )
        point.end = now


def _status(point: MixedPoint, o2c_fatal: str | None, streams: QueryStreams | None) -> ResultStatus:
    if o2c_fatal is not None or (streams is not None and streams.fatal):
        return "failed"
    if point.o2c is not None and point.o2c.status != "complete":
        return "partial"
    if interrupted(point) or any(e.startswith("stopped early") for e in point.errors):
        return "partial"
    return "complete"
