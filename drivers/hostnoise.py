"""The host-noise monitor of a run's lifecycle: every workload's phases, one record.

:func:`drivers.lifecycle.open_run` gives each scope a :class:`NoiseMonitor` (``scope.noise``);
a workload marks its phases with ``with scope.noise.phase("20 users"):`` (an o2c probe, a
mixed point, HammerDB's build and run) and attaches its result's ``config`` once
(:meth:`NoiseMonitor.attach`): after every phase the record
(:class:`reports.model.hostnoise.HostNoise`) is rewritten there, so each write of the result
carries the phases so far. TPC-H's benchmark samples the same counters continuously
(:class:`drivers.telemetry.Sampler`) and its report judges them by the same rule.

A phase is read at its start and its end (cumulative counters, so nothing between is lost):
the host's CPU split and steal (:func:`drivers.telemetry.cpu_split`,
:func:`drivers.telemetry.steal_percent`), the kit's CPU (this process, its live children and
the children it reaped), a local server's CPU (the processes its engine names,
``facts.server_processes``, and the children they reaped: PostgreSQL's ended backends), and
the 1-minute load average at both ends (its highest). A local server's processes count as the
engine's whatever they serve: the load average still shows other tenants' work.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dbbench.drivers.engine import Engine
from dbbench.drivers.telemetry import cpu_split, engine_scope, steal_percent
from dbbench.drivers.url import parse_url
from dbbench.reports.model import (
    EMBEDDED,
    NOISE_KEY,
    REMOTE,
    UNATTRIBUTED,
    HostNoise,
    NoisePhase,
)

try:  # the telemetry extra; without it nothing is measured and the record says so
    import psutil
except ImportError:  # pragma: no cover - the test environment installs the extra
    psutil = None


def _times(proc: Any, reaped: bool = True) -> float:
    t = proc.cpu_times()
    own = float(t.user + t.system)
    return own + (float(t.children_user + t.children_system) if reaped else 0.0)


def kit_seconds() -> float:
    """CPU seconds of this process, its live descendants and the children it reaped."""
    assert psutil is not None
    me = psutil.Process()
    total = _times(me)
    for child in me.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            total += _times(child, reaped=False)
    return total


def server_seconds(names: tuple[str, ...]) -> float:
    """CPU seconds of the processes named ``names`` (and the children they reaped), outside
    this kit's own process tree."""
    assert psutil is not None
    mine = {psutil.Process().pid, *(c.pid for c in psutil.Process().children(recursive=True))}
    total = 0.0
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") in names and proc.pid not in mine:
            with contextlib.suppress(psutil.Error):
                total += _times(proc)
    return total


@dataclass
class _Reading:
    wall: float
    mono: float
    cpu: Any
    load1: float | None
    kit: float
    engine: float | None


def engine_counting(engine: Engine | None, url: str) -> tuple[str, tuple[str, ...] | None]:
    """How the engine's CPU is counted, and the server processes to read (None: not read)."""
    if engine is None:  # not opened (HammerDB's build makes the database): not told apart
        return UNATTRIBUTED, None
    try:
        host = parse_url(url).host
    except Exception:
        host = None
    if not host:
        return EMBEDDED, ()  # in this process: the kit's CPU includes it
    if engine_scope(url) != "host":
        return REMOTE, ()
    names = engine.facts.server_processes
    if not names:
        return UNATTRIBUTED, None
    return f"its local server processes ({', '.join(names)})", names


class NoiseMonitor:
    """Host noise per phase of one run (see the module's docstring)."""

    def __init__(self, engine: Engine | None = None, url: str = "") -> None:
        self.counting, self._names = engine_counting(engine, url)
        self.noise = HostNoise(engine=self.counting)
        self._configs: list[dict[str, Any]] = []
        if psutil is None:
            self.noise.note = "not measured: install the telemetry extra (dbbench[telemetry])"
        else:
            self.noise.cores = psutil.cpu_count(logical=True) or os.cpu_count()

    def attach(self, config: dict[str, Any]) -> dict[str, Any]:
        """Keep ``config[NOISE_KEY]`` (a result's configuration) up to date; returned."""
        if not any(c is config for c in self._configs):
            self._configs.append(config)
        config[NOISE_KEY] = self.noise.plain()
        return config

    def _read(self) -> _Reading | None:
        if psutil is None:
            return None
        try:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            engine = server_seconds(self._names) if self._names else None
            if self._names == ():
                engine = 0.0
            return _Reading(
                time.time(), time.monotonic(), psutil.cpu_times(), load, kit_seconds(), engine
            )
        except Exception:  # noise is a fact about the run, never a reason to stop it
            return None

    @contextlib.contextmanager
    def phase(self, label: str) -> Iterator[None]:
        """Measure the block as the phase ``label`` (recorded however the block ends)."""
        before = self._read()
        try:
            yield
        finally:
            after = self._read()
            if before is not None and after is not None:
                self.noise.phases.append(self._phase(label, before, after))
                for config in self._configs:
                    config[NOISE_KEY] = self.noise.plain()

    def _phase(self, label: str, a: _Reading, b: _Reading) -> NoisePhase:
        seconds = b.mono - a.mono
        cores = self.noise.cores or 1

        def share(x: float | None, y: float | None) -> float | None:
            if x is None or y is None or seconds <= 0:
                return None
            return round(max(0.0, 100.0 * (y - x) / (seconds * cores)), 1)

        busy = cpu_split(b.cpu, a.cpu)[3] if seconds > 0 else None
        loads = [v for v in (a.load1, b.load1) if v is not None]
        return NoisePhase(
            label,
            round(a.wall, 3),
            round(b.wall, 3),
            load_max=round(max(loads), 2) if loads else None,
            cpu_busy=None if busy is None else round(busy, 1),
            kit=share(a.kit, b.kit),
            engine=share(a.engine, b.engine),
            steal=round(steal_percent(b.cpu, a.cpu), 1),
            attributable=self._names is not None,
        )
