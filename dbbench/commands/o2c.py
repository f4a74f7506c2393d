"""``dbbench o2c prepare|run|search|check|cleanup``: the SD-like order-to-cash workload.

Unofficial and SD-like: its rating is "O2C-SAPS (unofficial)", never SAPS, and no figure is
comparable with SAP certifications. Thin commands over :mod:`dbbench.drivers.o2c`; the
metrics and the report come from :mod:`dbbench.reports.o2c_metrics` and ``o2c_render``.
Exit codes: 0 valid, 3 invalid run (response time above the limit, a failed step, a lost
server) or failed check, 1 a user error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.o2c_progress import O2CDisplay, display
from dbbench.commands.signals import sigterm_as_interrupt
from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.result import build_result
from dbbench.drivers.o2c.simulator import (
    INTERRUPTED,
    RunConfig,
    Simulator,
    planned_probe,
    search,
)
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.model import O2CProbe, O2CResult
from dbbench.reports.o2c_metrics import (
    RATING_NAME,
    ProbeSummary,
    summarize,
    summarize_result,
)
from dbbench.reports.o2c_render import render_o2c

app = typer.Typer(
    help="SD-like order-to-cash dialog workload (unofficial; not SAP SD, no SAPS).",
    no_args_is_help=True,
)

EngineUrl = Annotated[
    str, typer.Option("--engine", "-e", help="Engine URL of a loaded TPC-H database.")
]
EngineUrls = Annotated[
    list[str],
    typer.Option(
        "--engine",
        "-e",
        help="Engine URL of a loaded TPC-H database; repeat it for the nodes of a "
        "multi-master cluster (SD-Parallel: users round-robin over the nodes).",
    ),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the master-data allocation.")]
Users = Annotated[int, typer.Option("--users", "-u", help="Simulated users.")]
Think = Annotated[float, typer.Option("--think", help="Think time per dialog step, seconds.")]
ThinkDist = Annotated[str, typer.Option("--think-dist", help="fixed (SD-like) or exp.")]
Rampup = Annotated[
    float | None,
    typer.Option("--rampup", help="Log-on ramp-up, seconds (default: one think time)."),
]
Steady = Annotated[float, typer.Option("--steady", help="Measured steady-state window, seconds.")]
Wp = Annotated[
    int | None,
    typer.Option(
        "--work-processes",
        "-w",
        help="Connections shared by the users (default: 2 x CPUs, capped by the server).",
    ),
]
RtLimit = Annotated[
    float, typer.Option("--rt-limit", help="Average dialog response-time limit, seconds.")
]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Result file (JSON).")]
Interval = Annotated[float, typer.Option("--progress", help="Seconds between progress lines.")]


def _open_nodes(urls: list[str]) -> list[Engine]:
    """The other nodes of a cluster; one that is down is one line naming it."""
    opened: list[Engine] = []
    try:
        for k, url in enumerate(urls, 2):
            try:
                opened.append(open_engine(url))
            except (DbbenchError, DriversError) as exc:
                raise DriversError(f"node {k} ({redact(url)}) is not reachable: {exc}") from exc
    except BaseException:
        for node in opened:
            node.close()
        raise
    return opened


def _node_labels(urls: list[str]) -> list[str]:
    """The nodes as a result records them (no passwords); none for one database."""
    return [redact(u) for u in urls] if len(urls) > 1 else []


def _out(out: Path | None, kind: str) -> Path:
    return out or Path(f"o2c-{kind}-{time.strftime('%Y%m%d-%H%M%S')}.json")


@app.command("prepare")
def prepare_cmd(
    engine: EngineUrl,
    seed: Seed = 1,
    users: Annotated[
        int | None, typer.Option("--users", "-u", help="Users to prepare (default: up to 2,000).")
    ] = None,
) -> None:
    """Check the TPC-H database, allocate each user's master data, snapshot what may change."""
    eng = open_engine(engine)
    try:
        p = setup.prepare(eng, seed=seed, users=users)
    finally:
        eng.close()
    typer.echo(
        f"prepared {redact(engine)} for {p.users:,} o2c users (seed {p.seed}, "
        f"SF {p.scale_factor:g}, order keys from {p.key_base:,})"
    )


def _config(
    users: int,
    think: float,
    think_dist: str,
    rampup: float | None,
    steady: float,
    wp: int | None,
    interval: float,
) -> RunConfig:
    cfg = RunConfig(
        users=users,
        think=think,
        think_dist=think_dist,
        rampup=rampup,
        steady=steady,
        work_processes=wp,
        progress_interval=interval,
    )
    cfg.validate()
    return cfg


@app.command("run")
def run_cmd(
    engines: EngineUrls,
    users: Users,
    think: Think = 10.0,
    think_dist: ThinkDist = "fixed",
    rampup: Rampup = None,
    steady: Steady = 300.0,
    work_processes: Wp = None,
    rt_limit: RtLimit = 1.0,
    out: Out = None,
    progress: Interval = 10.0,
) -> None:
    """A fixed number of users: ramp-up, the measured steady state, ramp-down."""
    shown = display(rt_limit)
    interval = shown.interval(progress)
    cfg = _config(users, think, think_dist, rampup, steady, work_processes, interval)
    path = _out(out, "run")
    journal = path.with_name(path.name + ".steps.csv")
    urls, engine = engines, engines[0]
    eng = open_engine(engine)
    others: list[Engine] = []
    try:
        others = _open_nodes(urls[1:])
        prepared = setup.require_prepared(eng)
        nodes = [eng, *others] if others else None
        sim = Simulator(eng, prepared, cfg, shown, journal, engine, nodes)  # checks first
        # written first: a driver killed outright leaves this file and the step journal
        planned = planned_probe(cfg, journal.name)
        build_result("run", eng, engine, prepared, [planned], rt_limit, cfg.__dict__).write(path)
        journal.unlink(missing_ok=True)
        with sigterm_as_interrupt(), shown.shown():  # kill or Ctrl-C: a partial result
            probe = sim.run()
        probe.nodes = _node_labels(urls)
        result = build_result("run", eng, engine, prepared, [probe], rt_limit, cfg.__dict__)
    finally:
        for node in others:
            node.close()
        eng.close()
    result.write(path)
    journal.unlink(missing_ok=True)  # everything is in the result now
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}", err=True)
    if not summarize(probe, rt_limit).passed:
        raise typer.Exit(ExitCode.INVALID_RUN)


@app.command("search")
def search_cmd(
    engines: EngineUrls,
    users: Annotated[int, typer.Option("--users", "-u", help="Users of the first probe.")] = 100,
    max_users: Annotated[int | None, typer.Option("--max-users", help="Never probe more.")] = None,
    max_probes: Annotated[int, typer.Option("--max-probes", help="At most this many probes.")] = 12,
    think: Think = 10.0,
    think_dist: ThinkDist = "fixed",
    rampup: Rampup = None,
    steady: Steady = 120.0,
    work_processes: Wp = None,
    rt_limit: RtLimit = 1.0,
    out: Out = None,
    progress: Interval = 10.0,
    confirm_steady: Annotated[
        float,
        typer.Option(
            "--confirm-steady",
            help="Steady window of the confirmation run at the count found; 0: none.",
        ),
    ] = 300.0,
) -> None:
    """The largest number of users whose steady-state average dialog RT is within the limit,
    confirmed by a full-length run at that count (one step down if it fails)."""
    if confirm_steady < 0:
        raise typer.BadParameter("--confirm-steady must not be negative")
    if max_probes <= 0:
        raise typer.BadParameter("--max-probes must be positive")
    shown_ = display(rt_limit)
    cfg = _config(
        users, think, think_dist, rampup, steady, work_processes, shown_.interval(progress)
    )

    path = _out(out, "search")
    result = _search(engines, cfg, rt_limit, max_users, max_probes, confirm_steady, path, shown_)
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}", err=True)
    if summarize_result(result).best is None:
        raise typer.Exit(ExitCode.INVALID_RUN)


def _search(
    engines: list[str],
    cfg: RunConfig,
    rt_limit: float,
    max_users: int | None,
    max_probes: int,
    confirm_steady: float,
    path: Path,
    shown_: O2CDisplay,
) -> O2CResult:
    """A search on the nodes ``engines`` (one database: one URL), its result written to
    ``path`` before and after every probe, and returned."""

    def verdict(p: O2CProbe) -> bool:
        return summarize(p, rt_limit).passed

    def shown(p: O2CProbe, ok: bool) -> None:
        s = summarize(p, rt_limit)
        label = "confirmation" if p.role == "confirmation" else "probe"
        shown_.note(
            f"{label} {p.users:,} users: avg RT {s.avg_rt:.3f} s, {s.steps_per_hour:,.0f} "
            f"dialog steps/h, {RATING_NAME} {s.rating:,.0f} -> {'pass' if ok else 'fail'}"
        )

    journal = path.with_name(path.name + ".steps.csv")

    def confirm(
        probes: list[O2CProbe],
        base: RunConfig,
        steady_s: float,
        passes: Callable[[O2CProbe], bool],
        before: Callable[[RunConfig], None],
        after: Callable[[O2CProbe, bool], None],
    ) -> list[O2CProbe]:
        """A full-length run at the largest passing count; if it fails, once more at the
        next passing count below (said on the terminal and visible in the result)."""
        counts = sorted({p.users for p in probes if passes(p)}, reverse=True)
        for attempt, n in enumerate(counts[:2]):
            if attempt:
                shown_.note(f"confirmation failed: stepping down to {n:,} users")
            run_cfg = RunConfig(**{**base.__dict__, "users": n, "steady": steady_s})
            before(run_cfg)
            shown_.label = f"confirmation: {n:,} users"
            found = Simulator(eng, prepared, run_cfg, shown_, journal, engine, nodes).run()
            found.role = "confirmation"
            ok = passes(found)
            after(found, ok)
            stopped = found.status == "failed" or any("interrupted" in e for e in found.errors)
            if ok or stopped:
                break
        return done

    config = {**cfg.__dict__, "max_users": max_users, "max_probes": max_probes}
    done: list[O2CProbe] = []
    urls, engine = engines, engines[0]
    eng = open_engine(engine)
    others: list[Engine] = []
    try:
        others = _open_nodes(urls[1:])
        nodes = [eng, *others] if others else None
        prepared = setup.require_prepared(eng)
        Simulator(eng, prepared, cfg, nodes=nodes)  # its checks before any file

        def keep(probes: list[O2CProbe]) -> None:
            """The result so far, rewritten before and after every probe: a driver killed
            outright leaves the finished probes and the running one's step journal."""
            build_result("search", eng, engine, prepared, probes, rt_limit, config).write(path)

        def before(probe_cfg: RunConfig) -> None:
            keep([*done, planned_probe(probe_cfg, journal.name)])
            journal.unlink(missing_ok=True)
            shown_.label = f"search probe {len(done) + 1}: {probe_cfg.users:,} users"

        def after(p: O2CProbe, ok: bool) -> None:
            p.nodes = _node_labels(urls)
            done.append(p)
            keep(done)
            journal.unlink(missing_ok=True)
            shown(p, ok)

        with sigterm_as_interrupt(), shown_.shown():
            probes = search(
                eng,
                prepared,
                cfg,
                verdict,
                max_users=max_users,
                max_probes=max_probes,
                on_probe=after,
                progress=shown_,
                before_probe=before,
                journal=journal,
                url=engine,
                nodes=nodes,
            )
            stopped = any(
                p.status == "failed" or any(e.startswith(INTERRUPTED) for e in p.errors)
                for p in probes
            )  # Ctrl-C, kill or a lost server ended the search: no confirmation run
            if confirm_steady > 0 and not stopped:
                probes = confirm(probes, cfg, confirm_steady, verdict, before, after)
        result = build_result("search", eng, engine, prepared, probes, rt_limit, config)
    finally:
        for node in others:
            node.close()
        eng.close()
    result.write(path)
    journal.unlink(missing_ok=True)
    return result


@app.command("scale-nodes")
def scale_nodes_cmd(
    engines: EngineUrls,
    users: Annotated[
        int, typer.Option("--users", "-u", help="Users of the first probe on one node.")
    ] = 100,
    max_users: Annotated[int | None, typer.Option("--max-users", help="Never probe more.")] = None,
    max_probes: Annotated[int, typer.Option("--max-probes", help="Probes per search.")] = 12,
    think: Think = 10.0,
    think_dist: ThinkDist = "fixed",
    rampup: Rampup = None,
    steady: Steady = 120.0,
    work_processes: Wp = None,
    rt_limit: RtLimit = 1.0,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory of the study.")] = Path(
        "o2c-nodes"
    ),
    progress: Interval = 10.0,
    confirm_steady: Annotated[
        float, typer.Option("--confirm-steady", help="Steady window of each confirmation run.")
    ] = 300.0,
) -> None:
    """SD-Parallel-style node study: a search on the first node, then the first two, ... all
    nodes; users at the RT limit, dialog steps/h and the relative figure per cluster size."""
    if len(engines) < 2:
        raise DriversError("a node study needs the URLs of at least two nodes (-e URL -e URL)")
    if max_probes <= 0:
        raise typer.BadParameter("--max-probes must be positive")
    shown_ = display(rt_limit)
    cfg = _config(
        users, think, think_dist, rampup, steady, work_processes, shown_.interval(progress)
    )
    out.mkdir(parents=True, exist_ok=True)
    results: list[O2CResult] = []
    start = cfg.users
    for k in range(1, len(engines) + 1):
        shown_.note(f"node study: {k} node{'s' if k > 1 else ''}")
        step_cfg = RunConfig(**{**cfg.__dict__, "users": start})
        path = out / f"nodes-{k}.json"
        found = _search(
            engines[:k], step_cfg, rt_limit, max_users, max_probes, confirm_steady, path, shown_
        )
        results.append(found)
        best = summarize_result(found).best
        if best is None:
            shown_.note(f"{k} nodes: no user count within the limit; the study stops")
            break
        start = best.users  # more nodes take at least as many users
    picked = []
    limits = []
    for found in results:
        summary = summarize_result(found)
        if summary.best is not None:
            index = next(i for i, x in enumerate(summary.probes) if x is summary.best)
            picked.append(found.probes[index])
            limits.append(limited_by(summary.probes, summary.best.users, max_users))
    first = results[0]
    study = O2CResult(
        kind="nodes", engine=first.engine, system=first.system, kit_version=first.kit_version,
        scale_factor=first.scale_factor, seed=first.seed, rt_limit=rt_limit,
        created=first.created, probes=picked,
        config={**first.config, "nodes": len(engines), "limited_by": limits},
    )  # fmt: skip
    path = out / "nodes.json"
    study.write(path)
    typer.echo(render_o2c(study, "text"))
    typer.echo(f"wrote {path} (and each cluster size's search: {out}/nodes-K.json)", err=True)
    if len(picked) < len(engines):
        raise typer.Exit(ExitCode.INVALID_RUN)


def limited_by(probes: list[ProbeSummary], best: int, max_users: int | None) -> str:
    """What ended a search at ``best`` users: a failed probe above it (the response time),
    the user cap (``--max-users`` or the users prepared), or the probe budget."""
    if any(not p.passed and p.users > best for p in probes):
        return "response time"
    if max_users is not None and best >= max_users:
        return "--max-users"
    if all(p.passed for p in probes):
        return "probe budget or users prepared"
    return "response time"


def user_series(text: str) -> list[int]:
    """``"50,100,200"``: the user counts of a scaling study, ascending, each at least 1."""
    try:
        values = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise DbbenchError(
            f"--users must be a comma-separated list of user counts: {text!r}"
        ) from None
    if not values or values[0] < 1:
        raise DbbenchError(f"--users needs user counts of at least 1: {text!r}")
    return values


@app.command("scale")
def scale_cmd(
    engine: EngineUrl,
    users: Annotated[
        str, typer.Option("--users", "-u", help="User counts, e.g. 50,100,200,400.")
    ] = "50,100,200,400",
    think: Think = 10.0,
    think_dist: ThinkDist = "fixed",
    rampup: Rampup = None,
    steady: Steady = 120.0,
    work_processes: Wp = None,
    rt_limit: RtLimit = 1.0,
    out: Out = None,
    progress: Interval = 10.0,
) -> None:
    """A scaling study: dialog steps/h at each user count, relative and per user (efficiency)."""
    series = user_series(users)
    shown = display(rt_limit)
    interval = shown.interval(progress)
    configs = [
        _config(n, think, think_dist, rampup, steady, work_processes, interval) for n in series
    ]
    path = _out(out, "scale")
    eng = open_engine(engine)
    probes: list[O2CProbe] = []
    try:
        prepared = setup.require_prepared(eng)
        config = {**configs[0].__dict__, "users": series}
        for k, cfg in enumerate(configs, 1):
            shown.label = f"scale point {k}/{len(configs)}: {cfg.users:,} users"
            sim = Simulator(eng, prepared, cfg, shown, url=engine)
            with sigterm_as_interrupt(), shown.shown():  # kill or Ctrl-C: the points so far stay
                try:
                    probes.append(sim.run())
                finally:
                    if probes:
                        build_result(
                            "scale", eng, engine, prepared, probes, rt_limit, config
                        ).write(path)
            s = summarize(probes[-1], rt_limit)
            shown.note(
                f"scale: {cfg.users:,} users: avg RT {s.avg_rt:.3f} s, "
                f"{s.steps_per_hour:,.0f} dialog steps/h"
            )
        result = build_result("scale", eng, engine, prepared, probes, rt_limit, config)
    finally:
        eng.close()
    result.write(path)
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}", err=True)
    if any(p.errors for p in probes):
        raise typer.Exit(ExitCode.INVALID_RUN)


@app.command("check")
def check_cmd(engine: EngineUrl) -> None:
    """Business invariants after any run, also an interrupted one."""
    eng = open_engine(engine)
    try:
        problems = setup.check(eng)
    finally:
        eng.close()
    if problems:
        for line in problems:
            typer.echo(f"FAIL {line}", err=True)
        raise typer.Exit(ExitCode.INVALID_RUN)
    typer.echo("o2c check passed: every business invariant holds")


@app.command("cleanup")
def cleanup_cmd(
    engine: EngineUrl,
    force: Annotated[
        bool, typer.Option("--force", help="Drop the o2c tables even if checksums differ.")
    ] = False,
) -> None:
    """Restore the TPC-H tables exactly (checksums as before prepare); drop the o2c tables."""
    eng = open_engine(engine)
    try:
        r = setup.cleanup(eng, force=force)
    finally:
        eng.close()
    same = r.touched_equal and r.fingerprints_equal
    typer.echo(
        f"o2c cleanup: deleted {r.orders_deleted:,} orders and {r.lines_deleted:,} lines; "
        + (
            "restored rows equal their pre-prepare checksums"
            if same
            else "WARNING: the TPC-H tables differ from before prepare (--force)"
        )
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="o2c")
