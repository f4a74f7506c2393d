"""``dbbench o2c prepare|run|search|scale|scale-nodes|check|cleanup``: the SD-like
order-to-cash workload.

Unofficial and SD-like: its rating is "O2C-SAPS (unofficial)", never SAPS, and no figure is
comparable with SAP certifications. The commands parse and print: each workload runs in
:func:`drivers.lifecycle.open_run` (the database's benchmark lock, signals) through
:mod:`dbbench.drivers.o2c.study`; the verdicts, metrics and report come from
:mod:`dbbench.reports.o2c.metrics` and ``o2c_document``. Exit codes: 0 valid, 3 invalid run
(response time above the limit, a failed step, a lost server) or failed check, 1 a user error,
130 an interrupted search, scaling or node study (Ctrl-C, kill: what was measured is kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

from dbbench.commands.o2c_progress import O2CDisplay, display
from dbbench.commands.options import OptionGroup, count_series, grouped, option
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.o2c.simulator import SD_WINDOW, RunConfig
from dbbench.drivers.o2c.study import (
    O2CWorkload,
    SearchLimits,
    interrupted,
    node_study,
    scale_study,
    search_with_confirmation,
)
from dbbench.drivers.rundir import default_run_name
from dbbench.drivers.url import redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.o2c.document import render_o2c
from dbbench.reports.o2c.judge import MetricsJudge
from dbbench.reports.o2c.metrics import TRANSACTION_STEPS, Limits
from dbbench.reports.o2c.model import O2CResult

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
Steady = Annotated[
    float,
    typer.Option(
        "--steady",
        help="Measured steady-state window, seconds (at least; rounded up to whole loops). "
        "Under 900 s (SD's 15 minutes) it is labelled 'short window, not SD-like'.",
    ),
]
ProbeSteady = Annotated[
    float | None,
    typer.Option(
        "--steady",
        help="Each probe's window, seconds (rounded up to whole loops; default "
        "--probe-loops whole loops).",
    ),
]
Out = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Result file (JSON; default: runs/o2c-KIND-TIME.json)."),
]


@dataclass(frozen=True)
class Dialog:
    """The options of every measuring o2c command, declared once (:data:`DIALOG`)."""

    think: float
    think_dist: str
    rampup: float | None
    work_processes: str | None
    rt_limit: float
    rt_p90: float | None
    rt_p99: float | None
    rt_limit_step: list[str]
    progress: float
    driver_processes: str
    driver_agent: list[str]

    def processes(self) -> int:
        """``--driver-processes``: a number, or ``auto`` (0: sized per probe)."""
        text = str(self.driver_processes).strip().lower()
        if text == "auto":
            return 0
        try:
            n = int(text)
        except ValueError:
            n = -1
        if n < 1:
            raise DbbenchError(
                f"--driver-processes {self.driver_processes!r}: a number of processes (1 or "
                "more) or 'auto'"
            )
        return n

    def start(self, users: int, steady: float) -> tuple[RunConfig, O2CDisplay]:
        """The checked run configuration for ``users`` and the display that shows it."""
        shown = display(self.rt_limit)
        return self.config(users, steady, shown), shown

    @property
    def auto(self) -> bool:
        """``--work-processes auto``: the search widens the pool while it limits the RT."""
        return (self.work_processes or "").strip().lower() == "auto"

    def pool(self) -> int | None:
        """The work processes asked for (None: the default, also the start of ``auto``)."""
        if self.work_processes is None or self.auto:
            return None
        try:
            return int(self.work_processes)
        except ValueError:
            raise DbbenchError(
                f"--work-processes {self.work_processes!r}: a number of connections or 'auto'"
            ) from None

    def fixed_pool(self, command: str) -> None:
        """``auto`` is a search's: other commands refuse it in one line."""
        if self.auto:
            raise DbbenchError(
                f"--work-processes auto is for search and scale-nodes, not {command}: "
                "give a number (the search reports the one it chose)"
            )

    def limits(self) -> Limits:
        """The response-time limits: the average, percentiles, per transaction."""
        if self.rt_limit <= 0:
            raise DbbenchError(f"--rt-limit must be positive, not {self.rt_limit:g}")
        for flag, v in (("--rt-p90", self.rt_p90), ("--rt-p99", self.rt_p99)):
            if v is not None and v <= 0:
                raise DbbenchError(f"{flag} must be positive, not {v:g}")
        return Limits(
            self.rt_limit, self.rt_p90, self.rt_p99, transaction_limits(self.rt_limit_step)
        )

    def config(self, users: int, steady: float, shown: O2CDisplay) -> RunConfig:
        cfg = RunConfig(
            users, self.think, self.think_dist, self.rampup, steady, self.pool(),
            progress_interval=shown.interval(self.progress),
            driver_processes=self.processes(), agents=tuple(self.driver_agent),
        )  # fmt: skip
        cfg.validate()
        return cfg


@dataclass(frozen=True)
class Search:
    """The options of the searching commands (``search``, ``scale-nodes``)."""

    max_users: int | None
    max_probes: int
    confirm_steady: float
    probe_loops: int
    confirm_repeat: int

    def limits(self, rt_limit: float, steady: float | None) -> SearchLimits:
        """The search's bounds; ``steady`` given: the probes' windows (whole loops)."""
        if self.confirm_steady < 0:
            raise typer.BadParameter("--confirm-steady must not be negative")
        if self.max_probes <= 0:
            raise typer.BadParameter("--max-probes must be positive")
        if self.probe_loops <= 0:
            raise typer.BadParameter("--probe-loops must be positive")
        if self.confirm_repeat <= 0:
            raise typer.BadParameter("--confirm-repeat must be positive")
        loops = None if steady is not None else self.probe_loops
        return SearchLimits(
            rt_limit, self.max_users, self.max_probes, self.confirm_steady, loops,
            confirm_repeat=self.confirm_repeat,
        )  # fmt: skip


#: The options of :class:`Dialog`, added to each measuring command's own.
DIALOG = OptionGroup(
    (
        option("think", float, 10.0, "--think", help="Think time per dialog step, seconds."),
        option("think_dist", str, "fixed", "--think-dist", help="fixed (SD-like) or exp."),
        option(
            "rampup", float | None, None, "--rampup",
            help="Log-on ramp-up, seconds (default: one whole loop, 15 x (think + expected RT)).",
        ),
        option(
            "work_processes", str | None, None, "--work-processes", "-w",
            help="Connections shared by the users (default: 2 x CPUs, capped by the server); "
            "auto (search, scale-nodes): widen them while they, not the database, hold the RT.",
        ),
        option(
            "rt_limit", float, 1.0, "--rt-limit",
            help="Average dialog response-time limit, seconds (SD's rule).",
        ),
        option(
            "rt_p90", float | None, None, "--rt-p90",
            help="Also limit the 90th percentile of the dialog response time, seconds.",
        ),
        option(
            "rt_p99", float | None, None, "--rt-p99",
            help="Also limit the 99th percentile of the dialog response time, seconds.",
        ),
        option(
            "rt_limit_step", list[str], [], "--rt-limit-step",
            help="A transaction's own average limit, e.g. VA01=1.5 (repeatable).",
        ),
        option("progress", float, 10.0, "--progress", help="Seconds between progress lines."),
        option(
            "driver_processes", str, "1", "--driver-processes",
            help="Driver processes sharing the users and work processes (a server engine; "
            "merged exactly into one probe); auto: sized per probe from the offered load and "
            "the driver CPU a step takes.",
        ),
        option(
            "driver_agent", list[str], [], "--driver-agent",
            help="A driver agent (`dbbench o2c agent`) at o2c://HOST:PORT driving one more "
            "share of the users (repeatable; its token in DBBENCH_AGENT_TOKEN).",
        ),
    ),
    Dialog,
)  # fmt: skip

#: The options of :class:`Search`.
SEARCH = OptionGroup(
    (
        option("max_users", int | None, None, "--max-users", help="Never probe more."),
        option(
            "max_probes", int, 12, "--max-probes",
            help="At most this many user counts per search (with -w auto, a count's probes "
            "with a wider pool come on top).",
        ),
        option(
            "confirm_steady", float, SD_WINDOW, "--confirm-steady",
            help="Steady window of the confirmation run at the count found (default SD's "
            "15 minutes, rounded up to whole loops); 0: none.",
        ),
        option(
            "probe_loops", int, 2, "--probe-loops",
            help="Each probe's window in whole loops (unless --steady is given).",
        ),
        option(
            "confirm_repeat", int, 1, "--confirm-repeat",
            help="Runs of the confirmation (the report gives their mean and 95 % CI).",
        ),
    ),
    Search,
)  # fmt: skip


def measuring(name: str, *, search: bool = False) -> Callable[[Callable[..., None]], None]:
    """Register ``o2c NAME`` with :data:`DIALOG`'s options (and :data:`SEARCH`'s), handed
    to the function as ``dialog`` (and ``search``)."""
    groups = {"dialog": DIALOG, **({"search": SEARCH} if search else {})}

    def register_command(fn: Callable[..., None]) -> None:
        app.command(name)(grouped(fn, groups))

    return register_command


def _out(out: Path | None, kind: str) -> Path:
    """A result file: as given, or a new one under ``runs/`` (never a loose file here)."""
    if out is not None:
        return out
    return default_run_name("o2c", kind, suffix=".json")


def transaction_limits(items: list[str]) -> dict[str, float]:
    """``["VA01=1.5", ...]``: each transaction's own average response-time limit."""
    found: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        name = name.strip().upper()
        try:
            limit = float(value)
        except ValueError:
            limit = -1.0
        if name not in TRANSACTION_STEPS or not limit > 0:
            raise DbbenchError(
                f"--rt-limit-step {item!r}: TRANSACTION=SECONDS with a positive limit, "
                f"TRANSACTION one of {', '.join(TRANSACTION_STEPS)}"
            )
        found[name] = limit
    return found


def _wrote(result: O2CResult, path: Path, also: str = "") -> None:
    typer.echo(render_o2c(result, "text"))
    typer.echo(f"wrote {path}{also}", err=True)


@app.command("prepare")
def prepare_cmd(
    engine: EngineUrl,
    seed: Seed = 1,
    users: Annotated[
        int | None, typer.Option("--users", "-u", help="Users to prepare (default: up to 2,000).")
    ] = None,
) -> None:
    """Check the TPC-H database, allocate each user's master data, snapshot what may change."""
    with open_run([engine], must_exist=True) as scope:
        p = O2CWorkload(seed=seed, users=users).prepare(scope)
    typer.echo(
        f"prepared {redact(engine)} for {p.users:,} o2c users (seed {p.seed}, "
        f"SF {p.scale_factor:g}, order keys from {p.key_base:,})"
    )


@measuring("run")
def run_cmd(
    engines: EngineUrls,
    users: Users,
    dialog: Dialog,
    steady: Steady = SD_WINDOW,
    out: Out = None,
    repeat: Annotated[
        int, typer.Option("--repeat", help="Runs (the report gives their mean and 95 % CI).")
    ] = 1,
) -> None:
    """A fixed number of users: ramp-up, the measured steady state, ramp-down."""
    limits = dialog.limits()
    dialog.fixed_pool("run")
    if repeat < 1:
        raise DbbenchError(f"--repeat must be at least 1, not {repeat}")
    cfg, shown = dialog.start(users, steady)
    path = _out(out, "run")
    workload = O2CWorkload(
        config=cfg, rt_limit=limits.avg, shown=shown, path=path, rt_extra=limits.config(),
        repeat=repeat,
    )  # fmt: skip
    with open_run(engines, must_exist=True) as scope:
        result = workload.run(scope)
    if any(interrupted(p) for p in result.probes):  # Ctrl-C or kill: one line, exit 130
        typer.echo(f"dbbench: run interrupted; the steps it measured are in {path}", err=True)
        raise typer.Exit(ExitCode.INTERRUPTED)
    _wrote(result, path)
    if not all(MetricsJudge(limits).passes(p) for p in result.probes):
        raise typer.Exit(ExitCode.INVALID_RUN)


@measuring("search", search=True)
def search_cmd(
    engines: EngineUrls,
    dialog: Dialog,
    search: Search,
    users: Annotated[int, typer.Option("--users", "-u", help="Users of the first probe.")] = 100,
    steady: ProbeSteady = None,
    out: Out = None,
) -> None:
    """The largest number of users whose steady-state average dialog RT is within the limit,
    confirmed by a full-length run at that count (one step down if it fails)."""
    limits = replace(
        search.limits(dialog.rt_limit, steady),
        rt_extra=dialog.limits().config(),
        auto_work_processes=dialog.auto,
    )
    cfg, shown = dialog.start(users, steady or SD_WINDOW)
    path = _out(out, "search")
    try:
        with open_run(engines, must_exist=True) as scope:
            judge = MetricsJudge(dialog.limits())
            result = search_with_confirmation(scope, cfg, limits, judge, shown, path)
    except KeyboardInterrupt:  # Ctrl-C or kill: the probes measured are in the file
        typer.echo(f"dbbench: search interrupted; the probes it measured are in {path}", err=True)
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    _wrote(result, path)
    if judge.best(result) is None:
        raise typer.Exit(ExitCode.INVALID_RUN)


@measuring("scale-nodes", search=True)
def scale_nodes_cmd(
    engines: EngineUrls,
    users: Annotated[
        int, typer.Option("--users", "-u", help="Users of the first probe on one node.")
    ] = 100,
    steady: ProbeSteady = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory of the study (default: runs/o2c-nodes-TIME)."),
    ] = None,
    *,
    dialog: Dialog,
    search: Search,
) -> None:
    """SD-Parallel-style node study: a search on the first node, then the first two, ... all
    nodes; users at the RT limit, dialog steps/h and the relative figure per cluster size."""
    limits = replace(
        search.limits(dialog.rt_limit, steady),
        rt_extra=dialog.limits().config(),
        auto_work_processes=dialog.auto,
    )
    cfg, shown = dialog.start(users, steady or SD_WINDOW)
    folder = default_run_name("o2c", "nodes") if out is None else out
    study = node_study(engines, cfg, limits, MetricsJudge(dialog.limits()), shown, folder)
    path = folder / "nodes.json"
    study.write(path)
    _wrote(study, path, f" (and each cluster size's search: {folder}/nodes-K.json)")
    if len(study.probes) < len(engines):
        raise typer.Exit(ExitCode.INVALID_RUN)


def user_series(text: str) -> list[int]:
    """``"50,100,200"``: the user counts of a scaling study, ascending, each at least 1."""
    return count_series(text, "--users", "user counts")


@measuring("scale")
def scale_cmd(
    engine: EngineUrl,
    dialog: Dialog,
    users: Annotated[
        str, typer.Option("--users", "-u", help="User counts, e.g. 50,100,200,400.")
    ] = "50,100,200,400",
    steady: Steady = 120.0,
    out: Out = None,
) -> None:
    """A scaling study: dialog steps/h at each user count, relative and per user (efficiency)."""
    series = user_series(users)
    dialog.fixed_pool("scale")
    shown = display(dialog.rt_limit)
    configs = [dialog.config(n, steady, shown) for n in series]
    path = _out(out, "scale")
    try:
        with open_run([engine], must_exist=True) as scope:
            result = scale_study(
                scope, configs, dialog.rt_limit, MetricsJudge(dialog.limits()), shown, path
            )
    except KeyboardInterrupt:  # Ctrl-C or kill: the points measured are in the file
        typer.echo(f"dbbench: scale interrupted; the points it measured are in {path}", err=True)
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    _wrote(result, path)
    if any(p.errors for p in result.probes):
        raise typer.Exit(ExitCode.INVALID_RUN)


@app.command("agent")
def agent_cmd(
    listen: Annotated[
        str, typer.Option("--listen", help="HOST:PORT to listen on (e.g. 127.0.0.2:7400).")
    ],
    token: Annotated[
        str | None,
        typer.Option("--token", help="The shared token (default: DBBENCH_AGENT_TOKEN)."),
    ] = None,
    once: Annotated[bool, typer.Option("--once", help="Serve one coordinator, then exit.")] = False,
) -> None:
    """A driver host: drive the share of users a coordinator's --driver-agent hands over."""
    from dbbench.drivers.o2c.agents import agent_token, parse_address, serve

    host, port = parse_address(listen)
    try:
        serve(host, port, agent_token(token), lambda line: typer.echo(line, err=True), once)
    except KeyboardInterrupt:
        raise typer.Exit(ExitCode.INTERRUPTED) from None


@app.command("check")
def check_cmd(engine: EngineUrl) -> None:
    """Business invariants after any run, also an interrupted one."""
    with open_run([engine], must_exist=True) as scope:
        problems = O2CWorkload().check(scope)
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
    with open_run([engine], must_exist=True) as scope:
        r = O2CWorkload(force=force).cleanup(scope)
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
