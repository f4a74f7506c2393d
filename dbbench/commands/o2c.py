"""``dbbench o2c prepare|run|search|check|cleanup``: the SD-like order-to-cash workload.

Unofficial and SD-like: its rating is "O2C-SAPS (unofficial)", never SAPS, and no figure is
comparable with SAP certifications. Thin commands over :mod:`dbbench.drivers.o2c`; the
metrics and the report come from :mod:`dbbench.reports.o2c_metrics` and ``o2c_render``.
Exit codes: 0 valid, 3 invalid run (response time above the limit, a failed step, a lost
server) or failed check, 1 a user error.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.run import _sigterm_as_interrupt
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.result import build_result
from dbbench.drivers.o2c.simulator import (
    Progress,
    RunConfig,
    Simulator,
    planned_probe,
    search,
)
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact
from dbbench.errors import ExitCode
from dbbench.reports.model import O2CProbe
from dbbench.reports.o2c_metrics import RATING_NAME, summarize
from dbbench.reports.o2c_render import render_o2c

app = typer.Typer(
    help="SD-like order-to-cash dialog workload (unofficial; not SAP SD, no SAPS).",
    no_args_is_help=True,
)

EngineUrl = Annotated[
    str, typer.Option("--engine", "-e", help="Engine URL of a loaded TPC-H database.")
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
        "--work-processes", "-w", help="Connections shared by the users (default 2 x CPUs)."
    ),
]
RtLimit = Annotated[
    float, typer.Option("--rt-limit", help="Average dialog response-time limit, seconds.")
]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Result file (JSON).")]
Interval = Annotated[float, typer.Option("--progress", help="Seconds between progress lines.")]


def _progress(p: Progress) -> None:
    typer.echo(
        f"[{p.elapsed:6.1f}s] {p.phase:<9} users={p.logged_on}/{p.users} "
        f"steps/s={p.steps_per_second:,.1f} rt avg={p.avg_rt:.3f}s errors={p.errors} "
        f"eta={p.remaining:.0f}s",
        err=True,
    )


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
    engine: EngineUrl,
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
    cfg = _config(users, think, think_dist, rampup, steady, work_processes, progress)
    path = _out(out, "run")
    journal = path.with_name(path.name + ".steps.csv")
    eng = open_engine(engine)
    try:
        prepared = setup.require_prepared(eng)
        sim = Simulator(eng, prepared, cfg, _progress, journal)  # checks before any file
        # written first: a driver killed outright leaves this file and the step journal
        planned = planned_probe(cfg, journal.name)
        build_result("run", eng, engine, prepared, [planned], rt_limit, cfg.__dict__).write(path)
        journal.unlink(missing_ok=True)
        with _sigterm_as_interrupt():  # kill or Ctrl-C: a partial result, still written
            probe = sim.run()
        result = build_result("run", eng, engine, prepared, [probe], rt_limit, cfg.__dict__)
    finally:
        eng.close()
    result.write(path)
    journal.unlink(missing_ok=True)  # everything is in the result now
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}", err=True)
    if not summarize(probe, rt_limit).passed:
        raise typer.Exit(ExitCode.INVALID_RUN)


@app.command("search")
def search_cmd(
    engine: EngineUrl,
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
) -> None:
    """The largest number of users whose steady-state average dialog RT is within the limit."""
    if max_probes <= 0:
        raise typer.BadParameter("--max-probes must be positive")
    cfg = _config(users, think, think_dist, rampup, steady, work_processes, progress)

    def verdict(p: O2CProbe) -> bool:
        return summarize(p, rt_limit).passed

    def shown(p: O2CProbe, ok: bool) -> None:
        s = summarize(p, rt_limit)
        typer.echo(
            f"probe {p.users:,} users: avg RT {s.avg_rt:.3f} s, {s.steps_per_hour:,.0f} "
            f"dialog steps/h, {RATING_NAME} {s.rating:,.0f} -> {'pass' if ok else 'fail'}",
            err=True,
        )

    eng = open_engine(engine)
    try:
        prepared = setup.require_prepared(eng)
        with _sigterm_as_interrupt():
            probes = search(
                eng,
                prepared,
                cfg,
                verdict,
                max_users=max_users,
                max_probes=max_probes,
                on_probe=shown,
                progress=_progress,
            )
        config = {**cfg.__dict__, "max_users": max_users, "max_probes": max_probes}
        result = build_result("search", eng, engine, prepared, probes, rt_limit, config)
    finally:
        eng.close()
    path = _out(out, "search")
    result.write(path)
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}", err=True)
    if not any(verdict(p) for p in probes):
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
