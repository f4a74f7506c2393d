"""The o2c search: the largest user count whose probe passes (doubling, then bisection; under
``--work-processes auto`` a count's pool of work processes widened while its probe is mostly
the wait for one), each probe a :class:`~drivers.o2c.simulator.Simulator` run."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c.capacity import room_for
from dbbench.drivers.o2c.setup import Prepared
from dbbench.drivers.o2c.simulator import INTERRUPTED, Progress, RunConfig, Simulator
from dbbench.reports.o2c.model import O2CProbe


@dataclass(frozen=True)
class Trial:
    """A probe as the search's rule sees it: its pool of work processes, the reports'
    verdict and, under ``--work-processes auto``, the reports' average response time and
    whether it is mostly the wait for a work process."""

    work_processes: int
    passed: bool
    rt: float = math.nan
    pool_bound: bool = False


@dataclass
class SearchRun:
    """What a search did: every probe in the order made, and each user count's decision
    (the probe of the pool it kept there)."""

    probes: list[O2CProbe] = field(default_factory=list)
    decided: dict[int, Trial] = field(default_factory=dict)


def search(
    engine: Engine,
    prepared: Prepared,
    config: RunConfig,
    passes: Callable[[O2CProbe], bool],
    *,
    max_users: int | None = None,
    max_probes: int = 12,
    resolution: float = 0.05,
    on_probe: Callable[[O2CProbe, bool], None] | None = None,
    progress: Callable[[Progress], None] | None = None,
    before_probe: Callable[[RunConfig], None] | None = None,
    journal: Path | None = None,
    url: str | None = None,
    nodes: list[Engine] | None = None,
    pool_bound: Callable[[O2CProbe], tuple[float, bool]] | None = None,
    runner: Callable[[Simulator], O2CProbe] | None = None,
) -> SearchRun:
    """The largest user count whose probe passes (:func:`search_rule`: doubling, then
    bisection, with ``--work-processes auto``'s widening when ``pool_bound`` is given).
    Every probe is kept; ``passes`` is the reports' verdict and ``pool_bound`` their
    (average RT, mostly waiting for a work process) of a probe (drivers do not compute
    metrics). ``before_probe`` sees each probe's configuration before it starts and
    ``journal`` receives its steps as they finish (the caller empties it between probes), so
    a killed driver loses nothing the probes already measured. A probe stopped by a lost
    server or an interrupt ends the search with what it has."""
    top = min(max_users or prepared.users, prepared.users)
    if config.users > top:
        raise DriversError(f"the search starts at {config.users} users, above its limit {top}")
    run = SearchRun()

    def measure(n: int, pool: int | None) -> Trial:
        cfg = RunConfig(**{**config.__dict__, "users": n, "work_processes": pool})
        if before_probe is not None:
            before_probe(cfg)
        sim = Simulator(engine, prepared, cfg, progress, journal, url, nodes)
        found = sim.run() if runner is None else runner(sim)
        ok = passes(found)
        run.probes.append(found)
        if on_probe is not None:
            on_probe(found, ok)
        if found.status == "failed" or any(e.startswith(INTERRUPTED) for e in found.errors):
            raise _Stopped()
        if pool_bound is None:
            return Trial(found.work_processes, ok)
        rt, bound = pool_bound(found)
        return Trial(found.work_processes, ok, rt, bound)

    def room() -> int | None:
        return room_for(nodes or [engine])

    with contextlib.suppress(_Stopped):
        search_rule(
            measure, config.users, top, max_probes=max_probes, resolution=resolution,
            pool=config.work_processes, room=None if pool_bound is None else room,
            decided=run.decided,
        )  # fmt: skip
    return run


def search_rule(
    measure: Callable[[int, int | None], Trial],
    start: int,
    top: int,
    *,
    max_probes: int = 12,
    resolution: float = 0.05,
    pool: int | None = None,
    room: Callable[[], int | None] | None = None,
    decided: dict[int, Trial] | None = None,
) -> dict[int, Trial]:
    """The search's rule over ``measure(users, work processes)`` (a probe, as a
    :class:`Trial`; None work processes: the default pool): the user counts of
    :func:`next_probe`, each decided by :func:`pool_step` when ``room`` is given
    (``--work-processes auto``: the connections the servers still accept, asked once per
    count), else by its one probe. Later counts start from the pool kept at the last one.
    A pool that was no better than the one it widened at some count is not probed again at
    a larger count (:func:`tried_in_vain`). Returns (and fills ``decided``, so a caller
    sees the counts decided before a probe raised) each count's deciding trial."""
    decided = {} if decided is None else decided
    history: list[tuple[int, bool]] = []
    in_vain: dict[int, int] = {}  # a pool -> the smallest count where it was no better
    w = pool
    while (n := next_probe(history, start, top, max_probes, resolution)) is not None:
        trials = [measure(n, w)]
        kept = trials[0]
        if room is not None:
            limit = room()
            while True:
                kept, wider = pool_step(trials, n, limit)
                if wider is None or tried_in_vain(in_vain, wider, n):
                    break
                trials.append(measure(n, wider))
            if trials[-1] is not kept:  # the last widening was no better
                last = trials[-1].work_processes
                in_vain[last] = min(n, in_vain.get(last, n))
            w = kept.work_processes
        decided[n] = kept
        history.append((n, kept.passed))
    return decided


def tried_in_vain(in_vain: Mapping[int, int], pool: int, users: int) -> bool:
    """Whether ``pool`` (or a narrower pool that was still wider than the one it widened)
    was no better at ``users`` or fewer (``in_vain``: pool -> the smallest such count).
    A wider pool that did not lower the RT there meets more load here: what holds the RT is
    then the machine (the CPUs the driver and the server share), not the pool, and another
    probe of it would cost a whole probe's minutes for nothing. Below that count it is
    still tried: with less load the pool may be the limit."""
    return any(p <= pool and m <= users for p, m in in_vain.items())


def pool_step(trials: Sequence[Trial], users: int, room: int | None) -> tuple[Trial, int | None]:
    """``--work-processes auto`` at one user count, from its probes so far (in the order
    made, each after the first with a wider pool): the probe that decides the count, and the
    pool to probe next (None: the count is decided). The pool is widened (twice the kept
    one, at most the users and ``room``, what the servers still accept) while the kept probe
    is mostly work-process wait; a wider pool is kept only when its RT is lower. A widening
    whose RT is no better decides the count with the narrower pool and that probe's verdict,
    never the worse probe's."""
    kept = trials[0]
    for wider in trials[1:]:
        if not wider.rt < kept.rt:  # no better (or not measured): the narrower pool stays
            return kept, None
        kept = wider
    if not kept.pool_bound:
        return kept, None
    limit = min(users, room if room is not None else users)
    wider_pool = min(2 * kept.work_processes, limit)
    return kept, (wider_pool if wider_pool > kept.work_processes else None)


def next_probe(
    history: list[tuple[int, bool]], start: int, top: int, max_probes: int, resolution: float
) -> int | None:
    """The user count of the next probe, or None when the search is done: ``start``, then
    doubling while every probe passed (capped at ``top``), then bisection between the
    largest pass and the smallest fail above it until they are within ``resolution``
    (relative to the pass) or one user apart; never more than ``max_probes`` probes."""
    if len(history) >= max_probes:
        return None
    if not history:
        return start
    if all(ok for _, ok in history):
        last = history[-1][0]
        return None if last >= top else min(top, last * 2)
    good = max((n for n, ok in history if ok), default=0)
    bad = min((n for n, ok in history if not ok and n > good), default=top + 1)
    if bad - good <= max(1, int(good * resolution)):
        return None
    n = (good + bad) // 2
    return None if n in (good, bad) or n < 1 else n


class _Stopped(Exception):
    """A probe failed outright (the server went away): the search ends with what it has."""
