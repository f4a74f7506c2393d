"""The mixed workload over the run lifecycle: a run (one mixed point and its baselines) or
a frontier (a grid of users x streams), each point measured by :func:`point.run_point`.

The baselines are the same measurement with one side left out: an o2c-only point for each
users count and a streams-only point for each stream count, in the same invocation (before
the mixed points) unless the caller passes them (read from earlier result files). The
result (``reports.mixed.model.MixedResult``) is written into the run directory before each
point (the planned point names its o2c steps journal, so a killed driver leaves both
journals) and after it; Ctrl-C or ``kill`` ends the study after the point it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.journal import Journal
from dbbench.drivers.lifecycle import RunScope
from dbbench.drivers.mixed.point import PointSpec, Settings, interrupted, loss, run_point
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.identity import distinct_servers
from dbbench.drivers.o2c.servercpu import server_cpu_scope
from dbbench.drivers.o2c.simulator import planned_probe
from dbbench.drivers.o2c.study import Display, node_labels
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.reports.mixed.model import MIXED_STEPS_FILE, MixedPoint, MixedResult
from dbbench.reports.model import kit_version
from dbbench.reports.tpch.model import RunResult


def require_mixable(engine: Engine) -> None:
    """One line for an engine without transactions: the o2c users' steps need them."""
    if not engine.facts.transactional:
        raise DriversError(
            f"dbbench mixed needs transactions (its o2c users write in them), which engine "
            f"{engine.name!r} does not offer; use a transactional database"
        )


def precheck(scope: RunScope, users: Sequence[int]) -> setup.Prepared:
    """What refuses a mixed run before anything is written (``open_run``'s check): an
    engine without transactions, a database not prepared for o2c or for fewer users, an
    engine o2c's steps cannot run on. Returns what prepare stored."""
    require_mixable(scope.engine)
    prepared = setup.require_prepared(scope.engine)
    if users and max(users) > prepared.users:
        raise DriversError(
            f"{max(users)} users, but the database is prepared for {prepared.users}: "
            f"run `dbbench o2c prepare --users {max(users)}` (after cleanup)"
        )
    setup.require_capable(scope.engine)
    return prepared


def reusable(
    given: Sequence[MixedPoint], users: Sequence[int], streams: Sequence[int], refresh: bool
) -> list[MixedPoint]:
    """The baselines of earlier results that stand for a baseline of this run: complete
    (a point its driver did not finish is measured again), of a users or stream count of
    the run, and a streams-only point only with the same refresh setting."""
    found: dict[tuple[str, int, int], MixedPoint] = {}
    for p in given:
        if p.status != "complete" or (p.role, p.users, p.streams) in found:
            continue
        if (p.role == "o2c-only" and p.users in users) or (
            p.role == "streams-only" and p.streams in streams and p.refresh == refresh
        ):
            found[(p.role, p.users, p.streams)] = p
    return list(found.values())


def plan(
    users: Sequence[int], streams: Sequence[int], given: Sequence[MixedPoint]
) -> list[PointSpec]:
    """The points to measure: the baselines not ``given``, then every (users, streams)."""
    if not users or not streams or min(users) < 1 or min(streams) < 1:
        raise DriversError("a mixed run needs at least one user and one query stream")
    have = {(p.role, p.users, p.streams) for p in given}
    specs = [PointSpec("o2c-only", n, 0) for n in users if ("o2c-only", n, 0) not in have]
    specs += [
        PointSpec("streams-only", 0, s) for s in streams if ("streams-only", 0, s) not in have
    ]
    specs += [PointSpec("mixed", n, s) for n in users for s in streams]
    return specs


@dataclass
class MixedWorkload:
    """Mixed as a :class:`~dbbench.drivers.lifecycle.Workload`: ``prepare``, ``check`` and
    ``cleanup`` are o2c's (the mix writes only through its users), ``run`` is
    :func:`run_study` into the scope's run directory."""

    users: list[int] = field(default_factory=list)
    streams: list[int] = field(default_factory=list)
    settings: Settings | None = None
    rt_limit: float = 1.0
    rt_extra: dict[str, Any] = field(default_factory=dict)
    shown: Display | None = None
    given: list[MixedPoint] = field(default_factory=list)
    kind: Literal["run", "frontier"] = "run"
    seed: int = 1
    prepare_users: int | None = None
    force: bool = False

    def prepare(self, scope: RunScope) -> setup.Prepared:
        require_mixable(scope.engine)
        return setup.prepare(scope.engine, seed=self.seed, users=self.prepare_users)

    def check(self, scope: RunScope) -> list[str]:
        return setup.check(scope.engine)

    def run(self, scope: RunScope) -> MixedResult:
        if self.settings is None or self.shown is None:
            raise DriversError("a mixed run needs its settings and display")
        return run_study(
            scope, self.users, self.streams, self.settings, self.rt_limit, self.shown,
            given=self.given, kind=self.kind, rt_extra=self.rt_extra,
        )  # fmt: skip

    def cleanup(self, scope: RunScope) -> setup.CleanupReport:
        return setup.cleanup(scope.engine, force=self.force)


def run_study(
    scope: RunScope,
    users: Sequence[int],
    streams: Sequence[int],
    settings: Settings,
    rt_limit: float,
    shown: Display,
    *,
    given: Sequence[MixedPoint] = (),
    kind: Literal["run", "frontier"] = "run",
    rt_extra: dict[str, Any] | None = None,
) -> MixedResult:
    """Every point of :func:`plan` on the engines of ``scope`` (several: the o2c users
    round-robin over the nodes, the streams and the freshness probe on the analytics node,
    ``settings.analytics``). Of the ``given`` baselines, those :func:`reusable` are used."""
    engine, url = scope.engine, scope.url
    if scope.out_dir is None:
        raise DriversError("a mixed run needs a run directory")
    if not 0 <= settings.analytics < len(scope.engines):
        raise DriversError(
            f"analytics node {settings.analytics + 1}: the run has "
            f"{len(scope.engines)} engine URL{'s' if len(scope.engines) != 1 else ''}"
        )
    given = reusable(given, users, streams, settings.refresh)
    specs = plan(users, streams, given)
    prepared = precheck(scope, users)
    for p in given:
        if p.streams and p.tpch is not None and abs(settings.sf - prepared.scale_factor) > 1e-9:
            raise DriversError("a baseline file of another scale factor")
    servers = distinct_servers(scope.engines, scope.urls)
    config: dict[str, Any] = {
        **settings.config.__dict__,
        **(rt_extra or {}),
        "users": list(users),
        "streams": list(streams),
        "refresh": settings.refresh,
        "query_timeout": settings.query_timeout,
        "seed0": settings.seed0,
        "freshness_interval": settings.freshness,
        "servers": servers,
        "server_cpu": server_cpu_scope(engine, url),
        "nodes": node_labels(scope.urls),
        "analytics_node": settings.analytics + 1,
        "baselines_given": sorted({p.source for p in given if p.source}),
    }
    scope.noise.attach(config)  # each point's host noise, as it ends
    info = engine_info(engine, url)  # once: a server lost later keeps its version
    points: list[MixedPoint] = list(given)
    path = scope.result_path
    journal = Journal(scope.journal_path)

    def result(extra: list[MixedPoint] = ()) -> MixedResult:  # type: ignore[assignment]
        errors = [f"{p.role} {p.users}x{p.streams}: {e}" for p in points for e in p.errors[:5]]
        return MixedResult(
            kind=kind, engine=info, system=system_info(),
            kit_version=kit_version(), scale_factor=prepared.scale_factor, seed=prepared.seed,
            rt_limit=rt_limit, created=time.time(), points=[*points, *extra], errors=errors,
            config=config,
        )  # fmt: skip

    try:
        journal.event("mixed_start", kind=kind, points=len(specs))
        for k, spec in enumerate(specs, 1):
            steps = scope.out_dir / MIXED_STEPS_FILE.format(k=k)
            steps.unlink(missing_ok=True)
            result([_planned(spec, settings, steps.name, k)]).write(path)
            shown.label = f"point {k}/{len(specs)}: {spec.label}"
            shown.note(shown.label)
            with shown.shown(), scope.noise.phase(f"point {k}: {spec.label}"):
                point = run_point(
                    scope, prepared, spec, settings, number=k, journal=journal,
                    steps_journal=steps, shown=shown if spec.users else None,
                )  # fmt: skip
            if point.o2c is not None:
                point.o2c.nodes = node_labels(scope.urls)
                point.o2c.steps_journal = steps.name
            points.append(point)
            result().write(path)
            if interrupted(point):
                raise KeyboardInterrupt
            if point.status == "failed":
                why = loss(point) or (point.errors[-1] if point.errors else "")
                shown.note(f"{spec.label}: failed ({why})")
                break
    finally:
        journal.event("mixed_end", points=len(points))
        journal.sync()
        journal.close()
    final = result()
    final.write(path)
    return final


def _planned(spec: PointSpec, settings: Settings, journal: str, number: int) -> MixedPoint:
    """The point as known before it runs (the result file written first names its o2c
    steps journal; its query intervals are in the run's journal under run ``number``)."""
    cfg = settings.o2c(max(spec.users, 1))
    probe = planned_probe(cfg, journal) if spec.users else None
    tpch = RunResult(number=number, streams=spec.streams, seeds={}) if spec.streams else None
    return MixedPoint(
        role=spec.role, users=spec.users, streams=spec.streams, start=time.time(),
        window_start=cfg.rampup_seconds() + cfg.think,
        window_end=cfg.rampup_seconds() + cfg.think + cfg.window_seconds(),
        o2c=probe, tpch=tpch, refresh=settings.refresh, status="partial",
        errors=["the driver stopped before writing this point (killed?): see its journals"],
    )  # fmt: skip
