"""One driver process of an o2c probe (``drivers.o2c.processes`` starts them; an agent,
``drivers.o2c.agents``, runs one for a coordinator on another host): its share of the users
on its own connections, started at the common epoch, its probe handed back as a
:class:`Part`. Imports neither of its two callers (no import circle).

A driver process whose parent (the coordinator, or the agent) dies outright ends within a
second (:func:`_end_when_orphaned`): its steps so far are in its journal already, and no
load goes on reaching the database for a run nobody collects."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbbench.drivers.lifecycle import open_engines
from dbbench.drivers.o2c.setup import Prepared
from dbbench.drivers.o2c.simulator import RunConfig, Simulator, UserState
from dbbench.reports.o2c.model import O2CProbe


@dataclass
class Part:
    """What one driver process measured: its probe and its driver-lag samples."""

    index: int
    probe: O2CProbe
    lags: list[float] = field(default_factory=list)
    server_scope: str = ""


def drive(
    urls: list[str],
    prepared: Prepared,
    config: RunConfig,
    part: tuple[int, int],
    journal: Path | None,
    inbox: Any,
    go: Any,
    start: Any,
    beside: tuple[Any, Any, int | None] | None = None,
) -> None:
    """A driver process: its share of the users on its own connections (no benchmark lock:
    the coordinator holds it), started at the common epoch; its probe goes to ``inbox``.
    ``beside`` (a workload beside the run, ``drivers.o2c.processes.Beside``): the halt
    event and its reason, and the step whose acknowledgements go to ``inbox`` (``posted``:
    order key, ``loop.time()``) or None."""
    k = part[0]
    threading.Thread(target=_end_when_orphaned, args=(os.getppid(),), daemon=True).start()
    try:
        engines = open_engines(urls, lock=False)
    except Exception as exc:  # the coordinator says so in one line
        inbox.put(("error", k, str(exc)))
        return
    try:
        nodes = engines if len(engines) > 1 else None
        sim = Simulator(engines[0], prepared, config, None, journal, urls[0], nodes)
        sim.part = part

        def wait_start() -> float:
            inbox.put(("ready", k, None))
            go.wait()
            return float(start.value)

        sim.wait_start = wait_start
        if beside is not None:
            _couple(sim, k, inbox, *beside)
        probe = sim.run()
        inbox.put(("probe", k, Part(k, probe, sim.lags, sim.server_cpu_scope)))
    except KeyboardInterrupt:
        inbox.put(("error", k, "interrupted before its run started"))
    except Exception as exc:
        inbox.put(("error", k, str(exc)))
    finally:
        for e in engines:
            with contextlib.suppress(Exception):
                e.close()


#: The exit code of a driver process that ended because its parent died.
ORPHANED = 3


def _end_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(ORPHANED)


def _couple(sim: Simulator, k: int, inbox: Any, halt: Any, reason: Any, step: int | None) -> None:
    """The driver process's side of :class:`~dbbench.drivers.o2c.processes.Beside`."""
    if step is not None:

        def posted(done: int, user: UserState, ok: int, end: float) -> None:
            if done == step and ok:
                inbox.put(("posted", k, (user.orderkey, end)))

        sim.on_step = posted

    def wait_halt() -> None:
        halt.wait()
        sim.halt(reason.value.decode("utf-8", "replace"))

    threading.Thread(target=wait_halt, name="o2c-halt", daemon=True).start()
