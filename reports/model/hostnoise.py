"""Host noise: how busy the machine was with other work during each phase of a run, and the
one judge of a busy host, for every result family.

A phase's record (:class:`NoisePhase`) holds the highest 1-minute load average seen, the
host's busy CPU, the share of it the kit used (its process and its children: HammerDB's
client, o2c's driver processes, an embedded engine), the share the engine's local server
processes used, and the CPU a hypervisor stole; the CPU of **other** processes is what is left.
:func:`busy_reasons` is the one rule that calls a phase busy (TPC-H's telemetry summary uses it
too): more than :data:`STEAL_LIMIT` % stolen, more than :data:`OTHER_CPU_LIMIT` % of all cores
used by processes other than the kit and the engine, or a load average above the CPU count. The
load average counts the run's own runnable threads too (o2c's driver processes, a server's
backends: an o2c search on an idle 2-core VM reached 11.8 with 2 to 4 % of the CPU other work),
so where the other processes' CPU is measured it is a reason only beside more than
:data:`OTHER_LOAD_LIMIT` % of it; where it is not (a server engine's CPU not told apart), the
load average alone is one.

The drivers record it through the run lifecycle (``drivers.hostnoise.NoiseMonitor``, one per
``open_run`` scope) in the result's ``config`` under :data:`NOISE_KEY`, so no family's
schema changes; :func:`recorded` reads it back (a damaged record is None, never an error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dbbench.reports.model.codec import plain

NOISE_KEY = "host_noise"
OTHER_CPU_LIMIT = 25.0  # % of all cores used by other processes: another workload
STEAL_LIMIT = 5.0  # % of all cores stolen by a hypervisor
#: % of all cores other processes used, beyond which a load average above the CPU count is
#: theirs too (below it, the run's own threads explain the load average)
OTHER_LOAD_LIMIT = 10.0

#: how the engine's CPU was told apart from other processes'
EMBEDDED = "embedded: in the kit's process"
REMOTE = "on another host: not on this machine"
UNATTRIBUTED = "a server whose CPU is not told apart here: host CPU not attributable to it"


@dataclass
class NoisePhase:
    """One phase's host figures (percentages of all cores; None: not measured)."""

    phase: str
    start: float  # epoch seconds
    end: float
    load_max: float | None = None
    cpu_busy: float | None = None
    kit: float | None = None
    engine: float | None = None  # a local server's processes; None where not attributable
    steal: float | None = None
    attributable: bool = True  # False: a local server whose CPU cannot be told apart

    @property
    def other(self) -> float | None:
        """CPU of processes other than the kit and the engine, % of all cores."""
        if not self.attributable or self.cpu_busy is None or self.kit is None:
            return None
        return max(0.0, self.cpu_busy - self.kit - (self.engine or 0.0))


@dataclass
class HostNoise:
    """A run's host noise: its phases, the CPU count they were judged against."""

    cores: int | None = None
    engine: str = ""  # how the engine's CPU was counted (its server processes, EMBEDDED, ...)
    phases: list[NoisePhase] = field(default_factory=list)
    note: str = ""  # why something was not measured

    def busy(self) -> list[str]:
        """One sentence per reason a phase's host was busy with other work."""
        out = []
        for p in self.phases:
            out += busy_reasons(p.phase, self.cores, p.load_max, p.steal, p.other)
        if out and any(not p.attributable for p in self.phases):
            out.append(f"the engine is {UNATTRIBUTED}")  # so no other-CPU figure
        return out

    def plain(self) -> dict[str, Any]:
        return plain(self)  # type: ignore[no-any-return]


def busy_reasons(
    phase: str,
    cores: int | None,
    load_max: float | None,
    steal: float | None,
    other: float | None,
) -> list[str]:
    """The one judge of a busy host: why ``phase`` ran on a host busy with other work."""
    out = []
    others_too = other is None or other > OTHER_LOAD_LIMIT
    if cores and load_max is not None and load_max > cores and others_too:
        out.append(f"host busy during {phase}: load average {load_max:.1f} above its {cores} CPUs")
    if steal is not None and steal > STEAL_LIMIT:
        out.append(f"host busy during {phase}: {steal:.0f} % of the CPU stolen")
    if other is not None and other > OTHER_CPU_LIMIT:
        out.append(
            f"host busy during {phase}: {other:.0f} % of the CPU used by other processes "
            "than dbbench and its engine"
        )
    return out


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def recorded(config: Any) -> HostNoise | None:
    """The host noise a result's ``config`` records; None when it records none (or a damaged
    one: a report never fails on it)."""
    data = config.get(NOISE_KEY) if isinstance(config, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("phases"), list):
        return None
    cores = data.get("cores")
    noise = HostNoise(
        cores if isinstance(cores, int) and not isinstance(cores, bool) and cores > 0 else None,
        str(data.get("engine", "")),
        note=str(data.get("note", "")),
    )
    for p in data["phases"]:
        if not isinstance(p, dict):
            return None
        noise.phases.append(
            NoisePhase(
                str(p.get("phase", "")),
                _number(p.get("start")) or 0.0,
                _number(p.get("end")) or 0.0,
                load_max=_number(p.get("load_max")),
                cpu_busy=_number(p.get("cpu_busy")),
                kit=_number(p.get("kit")),
                engine=_number(p.get("engine")),
                steal=_number(p.get("steal")),
                attributable=p.get("attributable") is not False,
            )
        )
    return noise
