"""Assemble an :class:`O2CResult` from probes, with the machine and engine disclosed."""

from __future__ import annotations

import time
from typing import Any, Literal

from dbbench.drivers.engine import Engine
from dbbench.drivers.o2c.setup import Prepared
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.reports.model import EngineInfo, kit_version
from dbbench.reports.o2c.model import O2CProbe, O2CResult


def build_result(
    kind: Literal["run", "search", "scale", "nodes"],
    engine: Engine,
    url: str,
    prepared: Prepared,
    probes: list[O2CProbe],
    rt_limit: float,
    config: dict[str, Any],
    info: EngineInfo | None = None,
) -> O2CResult:
    """The result of ``probes``; ``info``: the engine's disclosure as read before (None:
    read now, from the engine)."""
    errors = [f"probe at {p.users} users: {e}" for p in probes for e in p.errors[:5]]
    return O2CResult(
        kind=kind,
        engine=info if info is not None else engine_info(engine, url),
        system=system_info(),
        kit_version=kit_version(),
        scale_factor=prepared.scale_factor,
        seed=prepared.seed,
        rt_limit=rt_limit,
        created=time.time(),
        probes=probes,
        errors=errors,
        config=config,
    )
