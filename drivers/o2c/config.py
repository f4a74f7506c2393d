"""What an o2c run is asked to do (:class:`RunConfig`: users, think time, ramp-up, the steady
window in whole loops, work processes) and the probe it plans before it starts."""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

from dbbench.drivers.errors import DriversError
from dbbench.queries import o2c as q
from dbbench.reports.o2c.model import O2CProbe

#: The SAP SD benchmark's rule: at least 15 minutes of high load (the default window of a
#: run and of a search's confirmation; shorter windows are labelled "not SD-like").
SD_WINDOW = 900.0
#: The longest think time, ramp-up or steady window a run may ask for, seconds (a week:
#: ``--steady 1e12`` or ``--think 1e308`` was accepted with an ETA of infinity).
MAX_SECONDS = 7 * 24 * 3600.0
#: The response time assumed when sizing a loop before any was measured, seconds.
EXPECTED_RT = 0.1


@dataclass
class RunConfig:
    users: int
    think: float = 10.0
    think_dist: str = "fixed"  # fixed (SAP) or exp (negative exponential, same mean)
    rampup: float | None = None  # default: one full loop (:meth:`loop_seconds`)
    steady: float = SD_WINDOW  # at least this long, rounded up to whole loops
    work_processes: int | None = None  # default: drivers.o2c.capacity (server-aware)
    seed: int = 1
    progress_interval: float = 10.0
    expected_rt: float = EXPECTED_RT  # sizes the loop before any response was measured
    #: processes driving the users (``drivers.o2c.processes``); 0: ``auto``, sized per
    #: probe from the offered load (``drivers.o2c.processes.auto_processes``)
    driver_processes: int = 1
    #: driver agents on other hosts (``o2c://HOST:PORT``), each driving one more share
    agents: tuple[str, ...] = ()

    def validate(self) -> None:
        if self.users <= 0:
            raise DriversError(f"users must be a positive number, not {self.users}")
        if self.think < 0:
            raise DriversError(f"think time must not be negative, not {self.think:g} s")
        if self.steady <= 0:
            raise DriversError(f"the steady-state window must be positive, not {self.steady:g} s")
        if self.rampup is not None and self.rampup < 0:
            raise DriversError(f"ramp-up must not be negative, not {self.rampup:g} s")
        for what, seconds in (("think time", self.think), ("steady-state window", self.steady)):
            if seconds > MAX_SECONDS:
                raise DriversError(f"{what} {seconds:g} s: at most {MAX_SECONDS:g} s (a week)")
        if self.rampup is not None and self.rampup > MAX_SECONDS:
            raise DriversError(f"ramp-up {self.rampup:g} s: at most {MAX_SECONDS:g} s (a week)")
        if self.work_processes is not None and self.work_processes <= 0:
            raise DriversError(f"work processes must be positive, not {self.work_processes}")
        if self.think_dist not in ("fixed", "exp"):
            raise DriversError(f"think-time distribution {self.think_dist!r}: fixed or exp")
        if self.driver_processes < 0:
            raise DriversError(f"driver processes must be at least 1, not {self.driver_processes}")
        if self.expected_rt < 0:
            raise DriversError(f"expected response time must not be negative: {self.expected_rt}")

    def pool_size(self) -> int:
        if self.work_processes is not None:
            return min(self.work_processes, self.users)
        return min(self.users, max(4, 2 * (os.cpu_count() or 1)))

    def loop_seconds(self) -> float:
        """One order-to-cash loop: 15 steps x (think + expected response time)."""
        return q.STEPS_PER_LOOP * (self.think + self.expected_rt)

    def rampup_seconds(self) -> float:
        """The log-on ramp-up: as asked, else one full loop (at least 1 s)."""
        return self.rampup if self.rampup is not None else max(1.0, self.loop_seconds())

    def window_seconds(self) -> float:
        """The steady window: ``steady`` rounded up to a whole number of loops."""
        return whole_loops(self.steady, self.loop_seconds())


def whole_loops(seconds: float, loop: float) -> float:
    """``seconds`` rounded up to a whole number (at least one) of ``loop``-second loops."""
    if loop <= 0:
        return seconds
    return max(1, math.ceil(seconds / loop - 1e-9)) * loop


def planned_probe(config: RunConfig, journal: str) -> O2CProbe:
    """The probe as it is known before it runs, for the result file written first: if the
    driver dies, that file and the step journal it names keep what was measured."""
    rampup = config.rampup_seconds()
    return O2CProbe(
        users=config.users,
        think=config.think,
        think_dist=config.think_dist,
        work_processes=config.pool_size(),
        rampup=rampup,
        start=time.time(),
        window_start=rampup + config.think,
        window_end=rampup + config.think + config.window_seconds(),
        end=0.0,
        status="partial",
        errors=["the driver stopped before writing its result (killed?): steps from the journal"],
        steps_journal=journal,
    )
