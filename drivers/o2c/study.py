"""o2c workloads over the run lifecycle: one run (:func:`run_users`), the scaling study
(:func:`scale_study`), the user search with its confirmation run
(:func:`search_with_confirmation`), the SD-Parallel-style node study (:func:`node_study`),
and what ended each search (:func:`limited_by`).

Drivers compute no metrics: whether a probe passes and which probe a result stands for come
from a :class:`Judge` the caller builds from ``reports.o2c.metrics``. Every study runs its
probes inside :func:`drivers.lifecycle.open_run` (each database's benchmark lock held, Ctrl-C
and ``kill`` as an interrupt) and rewrites its result before and after every probe, so a
driver killed outright leaves the finished probes and the running one's step journal.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import RunScope, open_run
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.identity import distinct_servers
from dbbench.drivers.o2c.processes import require_shareable, resolve, run_processes
from dbbench.drivers.o2c.result import build_result
from dbbench.drivers.o2c.search import Trial, search
from dbbench.drivers.o2c.servercpu import server_cpu_scope
from dbbench.drivers.o2c.simulator import (
    INTERRUPTED,
    SD_WINDOW,
    Progress,
    RunConfig,
    Simulator,
    planned_probe,
)
from dbbench.drivers.signals import within
from dbbench.drivers.url import redact
from dbbench.reports.model import EngineInfo
from dbbench.reports.o2c.model import O2CProbe, O2CResult

#: Seconds an interrupted search may spend writing its stopped probe into the result: the
#: file written before that probe already holds every finished probe and names the step
#: journal of the stopped one, so a result too large to write by then is left as it is.
STOP_WRITE_SECONDS = 5.0


class Display(Protocol):
    """Where a study shows its probes (the CLI's live table or plain lines)."""

    label: str

    def __call__(self, progress: Progress, /) -> None: ...

    def note(self, line: str) -> None: ...

    def shown(self) -> AbstractContextManager[Any]: ...


class Judge(Protocol):
    """The reports' verdicts, passed in (drivers compute no metrics)."""

    def passes(self, probe: O2CProbe) -> bool: ...

    def describe(self, probe: O2CProbe, passed: bool) -> str:
        """The line shown after a probe (its figures and verdict)."""
        ...

    def best(self, result: O2CResult) -> int | None:
        """The index of the probe a search's result stands for; None: no count passed."""
        ...

    def scaled(self, probe: O2CProbe) -> str:
        """The line shown after a point of a scaling study."""
        ...

    def pool_bound(self, probe: O2CProbe) -> tuple[float, bool]:
        """The probe's average response time and whether it is mostly work-process wait."""
        ...


class Verdict(Protocol):
    """A probe's user count and whether it passed."""

    @property
    def users(self) -> int: ...

    @property
    def passed(self) -> bool: ...


@dataclass(frozen=True)
class SearchLimits:
    """The bounds of a search: the response-time limit, the user cap, the probe budget, the
    steady window of its confirmation run (0: none; by default SD's 15 minutes, rounded up
    to whole loops) and its probes' windows in whole loops (None: the configuration's
    ``steady``, rounded up to whole loops)."""

    rt_limit: float
    max_users: int | None = None
    max_probes: int = 12
    confirm_steady: float = SD_WINDOW
    probe_loops: int | None = 2
    #: limits beyond the average (percentiles, per transaction), recorded in the result's
    #: config for the reports' verdicts (``reports.o2c.metrics.Limits.config``)
    rt_extra: dict[str, Any] = field(default_factory=dict)
    #: ``--work-processes auto``: widen the pool while it, not the database, holds the
    #: response time (:func:`drivers.o2c.search.search`)
    auto_work_processes: bool = False
    #: runs of the confirmation at the count found (the reports give their mean and CI)
    confirm_repeat: int = 1


def node_labels(urls: Sequence[str]) -> list[str]:
    """The nodes as a result records them (no passwords); none for one database."""
    return [redact(u) for u in urls] if len(urls) > 1 else []


def stopped(probe: O2CProbe) -> bool:
    """Ctrl-C, kill or a lost server ended this probe: a study goes no further."""
    return probe.status == "failed" or interrupted(probe)


def interrupted(probe: O2CProbe) -> bool:
    """Ctrl-C or kill ended this probe."""
    return any(e.startswith(INTERRUPTED) for e in probe.errors)


class O2CWorkload:
    """o2c as a :class:`~dbbench.drivers.lifecycle.Workload`: ``prepare`` allocates the
    users' master data (``seed``, ``users``), ``check`` lists broken business invariants,
    ``run`` is :func:`run_users` at ``config`` into ``path``, ``cleanup`` restores the TPC-H
    tables (``force``: even if their checksums differ)."""

    def __init__(
        self,
        *,
        seed: int = 1,
        users: int | None = None,
        config: RunConfig | None = None,
        rt_limit: float = 1.0,
        shown: Display | None = None,
        path: Path | None = None,
        force: bool = False,
        rt_extra: dict[str, Any] | None = None,
        repeat: int = 1,
    ) -> None:
        self.seed, self.users, self.config, self.repeat = seed, users, config, repeat
        self.rt_limit, self.shown, self.path, self.force = rt_limit, shown, path, force
        self.rt_extra = rt_extra or {}

    def prepare(self, scope: RunScope) -> setup.Prepared:
        return setup.prepare(scope.engine, seed=self.seed, users=self.users)

    def check(self, scope: RunScope) -> list[str]:
        return setup.check(scope.engine)

    def run(self, scope: RunScope) -> O2CResult:
        if self.config is None or self.shown is None or self.path is None:
            raise DriversError("an o2c run needs its configuration, display and result path")
        return run_users(
            scope, self.config, self.rt_limit, self.shown, self.path, self.rt_extra, self.repeat
        )

    def cleanup(self, scope: RunScope) -> setup.CleanupReport:
        return setup.cleanup(scope.engine, force=self.force)


def run_users(
    scope: RunScope,
    config: RunConfig,
    rt_limit: float,
    shown: Display,
    path: Path,
    rt_extra: dict[str, Any] | None = None,
    repeat: int = 1,
) -> O2CResult:
    """A fixed number of users on the engines of ``scope`` (several: round-robin over the
    nodes), ``repeat`` times (each a probe of the result; a stopped one ends them). The
    result is written to ``path`` first (a planned probe naming the step journal: a driver
    killed outright leaves both), then with each probe; returned."""
    if repeat < 1:
        raise DriversError(f"--repeat must be at least 1, not {repeat}")
    engine, url = scope.engine, scope.url
    nodes = scope.engines if len(scope.engines) > 1 else None
    servers = distinct_servers(scope.engines, scope.urls)  # one line each server, once
    prepared = setup.require_prepared(engine)
    journal = path.with_name(path.name + ".steps.csv")
    sim = Simulator(engine, prepared, config, shown, journal, url, nodes)  # checks first
    require_shareable(engine, config.driver_processes)
    path.parent.mkdir(parents=True, exist_ok=True)
    planned = planned_probe(config, journal.name)
    settings = {**config.__dict__, **(rt_extra or {}), "servers": servers, "repeat": repeat}
    settings["server_cpu"] = server_cpu_scope(engine, url)
    scope.noise.attach(settings)
    probes: list[O2CProbe] = []
    for k in range(repeat):
        if k:
            shown.label = f"repeat {k + 1}/{repeat}: {config.users:,} users"
            sim = Simulator(engine, prepared, config, shown, journal, url, nodes)
        result = build_result("run", engine, url, prepared, [*probes, planned], rt_limit, settings)
        result.write(path)
        journal.unlink(missing_ok=True)
        with shown.shown():  # kill or Ctrl-C: a partial probe
            probe = probe_on(scope, sim, journal)
        probe.nodes = node_labels(scope.urls)
        probes.append(probe)
        result = build_result("run", engine, url, prepared, probes, rt_limit, settings)
        result.write(path)
        journal.unlink(missing_ok=True)  # everything is in the result now
        if stopped(probe):
            break
    return result


def probe_on(scope: RunScope, sim: Simulator, journal: Path | None) -> O2CProbe:
    """:func:`drive` on the engines of ``scope``, the host noise of it recorded as a phase."""
    with scope.noise.phase(f"{sim.config.users:,} users"):
        return drive(sim, scope.urls, journal)


def drive(sim: Simulator, urls: Sequence[str], journal: Path | None) -> O2CProbe:
    """The probe of ``sim``'s configuration: in this process, or with
    ``driver_processes > 1`` by that many driver processes, merged
    (:func:`drivers.o2c.processes.run_processes`)."""
    n, why = resolve(sim.engine, sim.config, sim.pool)
    if n == 1 and not sim.config.agents:
        probe = sim.run()
        if why and probe.driver_cpu_seconds is not None:  # the one process's CPU, shown
            probe.driver_cpu_by_process = [round(probe.driver_cpu_seconds, 3)]
    else:
        probe = run_processes(sim.engine, urls, sim.prepared, sim.config, n, journal)
    probe.driver_processes_chosen = why
    return probe


def scale_study(
    scope: RunScope,
    configs: Sequence[RunConfig],
    rt_limit: float,
    judge: Judge,
    shown: Display,
    path: Path,
) -> O2CResult:
    """One probe per configuration (user count), the result rewritten after each: Ctrl-C or
    ``kill`` keeps the points so far and ends the study (``KeyboardInterrupt``)."""
    engine, url = scope.engine, scope.url
    prepared = setup.require_prepared(engine)
    settings = scope.noise.attach({**configs[0].__dict__, "users": [c.users for c in configs]})
    probes: list[O2CProbe] = []
    path.parent.mkdir(parents=True, exist_ok=True)

    def result() -> O2CResult:
        return build_result("scale", engine, url, prepared, probes, rt_limit, settings)

    for k, config in enumerate(configs, 1):
        shown.label = f"scale point {k}/{len(configs)}: {config.users:,} users"
        sim = Simulator(engine, prepared, config, shown, url=url)
        require_shareable(engine, config.driver_processes)
        with shown.shown():
            try:
                probes.append(probe_on(scope, sim, None))
            finally:
                if probes:
                    result().write(path)
        if interrupted(probes[-1]):  # no further point: the study stops here
            raise KeyboardInterrupt
        shown.note(judge.scaled(probes[-1]))
    final = result()
    final.write(path)
    return final


def search_with_confirmation(
    scope: RunScope,
    config: RunConfig,
    limits: SearchLimits,
    judge: Judge,
    shown: Display,
    path: Path,
) -> O2CResult:
    """A search on the engines of ``scope`` (several: the nodes of a cluster), then a
    full-length confirmation run at the largest passing count, and once more at the next
    passing count below if that fails (said on the display and visible in the result).
    The result is written to ``path`` before and after every probe, and returned.

    Ctrl-C or kill stops it promptly with ``KeyboardInterrupt``: the stopped probe is
    written into the result if that takes at most :data:`STOP_WRITE_SECONDS` (else the file
    keeps the finished probes and the stopped one's step journal), and nothing more is
    measured, summarized or written."""
    engine, url = scope.engine, scope.url
    nodes = scope.engines if len(scope.engines) > 1 else None
    servers = distinct_servers(scope.engines, scope.urls)  # one line each server, once
    prepared = setup.require_prepared(engine)
    if limits.probe_loops is not None:  # probes of whole loops
        config = RunConfig(
            **{**config.__dict__, "steady": limits.probe_loops * config.loop_seconds()}
        )
    Simulator(engine, prepared, config, nodes=nodes)  # its checks before any file
    require_shareable(engine, config.driver_processes)
    path.parent.mkdir(parents=True, exist_ok=True)
    journal = path.with_name(path.name + ".steps.csv")
    settings = {
        **config.__dict__,
        "max_users": limits.max_users,
        "max_probes": limits.max_probes,
        "probe_loops": limits.probe_loops,
        "confirm_steady": limits.confirm_steady,
        "confirm_repeat": limits.confirm_repeat,
        **limits.rt_extra,
        "servers": servers,
        "server_cpu": server_cpu_scope(engine, url),
    }
    if limits.auto_work_processes:  # said from the first write: a stopped search shows it too
        settings["work_processes"] = "auto"
    scope.noise.attach(settings)
    done: list[O2CProbe] = []
    seen: list[EngineInfo] = []  # the engine's disclosure as last read

    def build(probes: list[O2CProbe], info: EngineInfo | None = None) -> O2CResult:
        """The result of ``probes``; ``info``: the engine's disclosure (None: read now)."""
        result = build_result(
            "search", engine, url, prepared, probes, limits.rt_limit, settings, info
        )
        seen[:] = [result.engine]
        return result

    def keep(probes: list[O2CProbe], info: EngineInfo | None = None) -> O2CResult:
        result = build(probes, info)
        result.write(path)
        return result

    def before(probe_cfg: RunConfig) -> None:
        keep([*done, planned_probe(probe_cfg, journal.name)])
        journal.unlink(missing_ok=True)
        shown.label = f"search probe {len(done) + 1}: {probe_cfg.users:,} users"

    def after(probe: O2CProbe, ok: bool) -> None:
        probe.nodes = node_labels(scope.urls)
        done.append(probe)
        if interrupted(probe):  # stop now: no verdict line, no summary, one bounded write
            info = seen[0] if seen else None  # not asked again: the engine may not answer
            if within(STOP_WRITE_SECONDS, lambda: keep(done, info)) is not None:
                journal.unlink(missing_ok=True)
            raise KeyboardInterrupt
        keep(done)
        journal.unlink(missing_ok=True)
        shown.note(judge.describe(probe, ok))

    decided: dict[int, Trial] = {}

    def confirm(users: int) -> O2CProbe:
        pool = config.work_processes
        if limits.auto_work_processes:  # the pool the search kept at this count
            pool = decided[users].work_processes
        run_cfg = RunConfig(
            **{
                **config.__dict__,
                "users": users,
                "steady": limits.confirm_steady,
                "work_processes": pool,
            }
        )
        before(run_cfg)
        first_failed: O2CProbe | None = None
        for k in range(limits.confirm_repeat):
            if k:
                before(run_cfg)
            shown.label = f"confirmation {k + 1}/{limits.confirm_repeat}: {users:,} users"
            sim = Simulator(engine, prepared, run_cfg, shown, journal, url, nodes)
            found = probe_on(scope, sim, journal)
            found.role = "confirmation"
            ok = judge.passes(found)
            after(found, ok)
            if stopped(found):
                return found
            if not ok and first_failed is None:
                first_failed = found
        return first_failed or found  # any failed run rules the count out

    try:
        with shown.shown():
            found = search(
                engine, prepared, config, judge.passes, max_users=limits.max_users,
                max_probes=limits.max_probes, on_probe=after, progress=shown,
                before_probe=before, journal=journal, url=url, nodes=nodes,
                pool_bound=judge.pool_bound if limits.auto_work_processes else None,
                runner=lambda sim: probe_on(scope, sim, journal),
            )  # fmt: skip
            decided.update(found.decided)
            if limits.confirm_steady > 0 and not any(stopped(p) for p in found.probes):
                step_down(decided, judge.passes, confirm, shown.note)
    except KeyboardInterrupt:
        if done and not interrupted(done[-1]):  # between probes: no probe says so, the file does
            info = seen[0] if seen else None
            within(STOP_WRITE_SECONDS, lambda: _stopped_between(build(done, info), path))
        raise
    if limits.auto_work_processes:
        best = judge.best(build(done))
        chosen = None if best is None else chosen_pool(done[best], decided)
        settings["work_processes_chosen"] = chosen
        shown.note(f"work processes (auto): {chosen if chosen is not None else 'none passed'}")
    result = keep(done)
    journal.unlink(missing_ok=True)
    return result


def _stopped_between(result: O2CResult, path: Path) -> None:
    """Write ``result`` of a search stopped between two probes, saying so (the probes it
    holds are complete; the search, its confirmation and the W it chose are not)."""
    result.errors.append(
        f"{INTERRUPTED} between probes: the search stopped after {len(result.probes)} probe(s), "
        "before its end (no confirmation, no W chosen)"
    )
    result.write(path)


def chosen_pool(best: O2CProbe, decided: Mapping[int, Trial]) -> int:
    """``--work-processes auto``: the pool the search chose at the count ``best`` (the probe
    its result stands for) is in: a confirmation's own, else the one the search kept there
    (not a wider pool it tried and dropped)."""
    kept = decided.get(best.users)
    if best.role == "confirmation" or kept is None:
        return best.work_processes
    return kept.work_processes


def step_down(
    decided: Mapping[int, Trial],
    passes: Callable[[O2CProbe], bool],
    confirm: Callable[[int], O2CProbe],
    note: Callable[[str], None],
) -> None:
    """The confirmation: a full-length run at the largest count the search passed
    (``decided``: each count's deciding probe); if it fails (and was not stopped), once
    more at the next passing count below, never further."""
    counts = sorted((n for n, t in decided.items() if t.passed), reverse=True)
    for attempt, users in enumerate(counts[:2]):
        if attempt:
            note(f"confirmation failed: stepping down to {users:,} users")
        found = confirm(users)
        if passes(found) or stopped(found):
            return


def node_study(
    urls: Sequence[str],
    config: RunConfig,
    limits: SearchLimits,
    judge: Judge,
    shown: Display,
    out: Path,
) -> O2CResult:
    """SD-Parallel-style: a search on the first node, then the first two, ... all nodes
    (each starting at the count the previous size reached), written to ``out/nodes-K.json``;
    returns the study (the best probe of each size and what limited its search)."""
    if len(urls) < 2:
        raise DriversError("a node study needs the URLs of at least two nodes (-e URL -e URL)")
    with open_run(urls, must_exist=True) as scope:  # each server once, before any work
        distinct_servers(scope.engines, scope.urls)
    created = not out.exists()
    results: list[O2CResult] = []
    start = config.users
    try:
        for k in range(1, len(urls) + 1):
            with open_run(urls[:k], must_exist=True) as scope:
                out.mkdir(parents=True, exist_ok=True)
                shown.note(f"node study: {k} node{'s' if k > 1 else ''}")
                step_cfg = RunConfig(**{**config.__dict__, "users": start})
                found = search_with_confirmation(
                    scope, step_cfg, limits, judge, shown, out / f"nodes-{k}.json"
                )
            results.append(found)
            best = judge.best(found)
            if best is None:
                shown.note(f"{k} nodes: no user count within the limit; the study stops")
                break
            start = found.probes[best].users  # more nodes take at least as many users
    except BaseException:
        if created:  # nothing was measured (an unreachable node): no empty folder stays
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    return _study(results, judge, limits, len(urls))


@dataclass(frozen=True)
class _Verdict:
    users: int
    passed: bool


def _study(results: list[O2CResult], judge: Judge, limits: SearchLimits, n: int) -> O2CResult:
    picked: list[O2CProbe] = []
    limits_: list[str] = []
    for found in results:
        best = judge.best(found)
        if best is None:
            continue
        picked.append(found.probes[best])
        verdicts = [_Verdict(p.users, judge.passes(p)) for p in found.probes]
        limits_.append(limited_by(verdicts, found.probes[best].users, limits.max_users))
    first = results[0]
    return O2CResult(
        kind="nodes", engine=first.engine, system=first.system, kit_version=first.kit_version,
        scale_factor=first.scale_factor, seed=first.seed, rt_limit=limits.rt_limit,
        created=first.created, probes=picked,
        config={**first.config, **limits.rt_extra, "nodes": n, "limited_by": limits_},
    )  # fmt: skip


def limited_by(probes: Sequence[Verdict], best: int, max_users: int | None) -> str:
    """What ended a search at ``best`` users: a failed probe above it (the response time),
    the user cap (``--max-users`` or the users prepared), or the probe budget."""
    if any(not p.passed and p.users > best for p in probes):
        return "response time"
    if max_users is not None and best >= max_users:
        return "--max-users"
    if all(p.passed for p in probes):
        return "probe budget or users prepared"
    return "response time"
