"""``dbbench mixed run|frontier``: o2c users and TPC-H query streams on one o2c-prepared
TPC-H database at the same time, with the o2c-only and streams-only baselines.

Unofficial (not SAP SD, not TPC-H, not CH-benCHmark). The commands parse and print: the
workload runs in :func:`drivers.lifecycle.open_run` (a run directory, the database's
benchmark lock, signals) through :mod:`dbbench.drivers.mixed.study`; the figures and the
report come from :mod:`dbbench.reports.mixed.metrics` and ``mixed_render``. Prepare, check
and clean up the database with ``dbbench o2c prepare|check|cleanup``. Exit codes: 0 valid
(``run``: and within the RT limit), 3 invalid (a failed query or step, a lost server,
``run``: the RT limit), 1 a user error, 130 interrupted (the result keeps what was measured).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

import typer

from dbbench.commands.o2c import DIALOG, Dialog
from dbbench.commands.options import OptionGroup, count_series, grouped, option
from dbbench.drivers.lifecycle import RunScope, open_run
from dbbench.drivers.mixed.point import Settings
from dbbench.drivers.mixed.study import MixedWorkload, precheck
from dbbench.drivers.o2c.processes import require_shareable
from dbbench.drivers.rundir import default_run_name
from dbbench.drivers.sequencer.config import check_options
from dbbench.errors import DbbenchError, ExitCode
from dbbench.queries.params import seed_from_time
from dbbench.reports.families import read_result
from dbbench.reports.mixed.document import render_mixed
from dbbench.reports.mixed.metrics import baseline_points, summarize_mixed
from dbbench.reports.mixed.model import MixedPoint, MixedResult

app = typer.Typer(
    help="o2c users and TPC-H query streams on one database at once (unofficial; not SAP "
    "SD, not TPC-H, not CH-benCHmark).",
    no_args_is_help=True,
)

EngineUrls = Annotated[
    list[str],
    typer.Option(
        "--engine", "-e",
        help="Engine URL of an o2c-prepared TPC-H database (dbbench o2c prepare); repeat it "
        "for the nodes of a multi-master cluster (users round-robin over them, the streams "
        "and the freshness probe on --analytics-node).",
    ),
]  # fmt: skip
Steady = Annotated[
    float,
    typer.Option(
        "--steady",
        help="Measured window of each point, seconds (at least; rounded up to whole o2c loops).",
    ),
]
Streams = Annotated[int, typer.Option("--streams", "-S", help="TPC-H query streams.")]


@dataclass(frozen=True)
class Shared:
    """The options ``run`` and ``frontier`` share, declared once (:data:`SHARED`): the run
    directory, the baselines, the streams' seed and refresh, the freshness probe."""

    out: Path | None
    force: bool
    baseline: list[str]
    seed: int | None
    refresh: bool
    query_timeout: float | None
    freshness: float
    analytics_node: int


#: The options of :class:`Shared`, added to both commands' own.
SHARED = OptionGroup(
    (
        option(
            "out", Path | None, None, "--out", "-o",
            help="Run directory (default: runs/mixed-KIND-TIME).",
        ),
        option(
            "force", bool, False, "--force",
            help="Reuse a run directory, replacing dbbench's own files.",
        ),
        option(
            "baseline", list[str], [], "--baseline",
            help="An earlier result holding baselines (an o2c run, or a mixed result's o2c-only "
            "and streams-only points): those are not measured again. Repeatable.",
        ),
        option(
            "seed", int | None, None, "--seed",
            help="qgen seed0 of the streams (default: from the start time).",
        ),
        option(
            "refresh", bool, False, "--refresh/--no-refresh",
            help="Also run a refresh stream of S RF1/RF2 pairs (off: o2c is the write load). "
            "It changes the TPC-H tables: o2c check then reports them, cleanup needs --force.",
        ),
        option(
            "query_timeout", float | None, None, "--query-timeout",
            help="Seconds; a query past it fails the run.",
        ),
        option(
            "freshness", float, 0.25, "--freshness",
            help="Seconds between the freshness probe's reads; 0: off.",
        ),
        option(
            "analytics_node", int, 1, "--analytics-node",
            help="Which --engine (1: the first) the query streams and the freshness probe read "
            "on; the users round-robin over all of them.",
        ),
    ),
    Shared,
)  # fmt: skip


def _series(text: str, what: str) -> list[int]:
    return count_series(text, f"--{what}", f"{what} counts")


def _baselines(files: list[str]) -> list[MixedPoint]:
    found: list[MixedPoint] = []
    for name in files:
        _family, result, _note = read_result(Path(name))
        points = baseline_points(result, Path(name).name)
        if not points:
            raise DbbenchError(f"--baseline {name}: neither an o2c result nor a mixed result")
        found += points
    return found


def _measure(
    kind: Literal["run", "frontier"],
    engines: list[str],
    users: list[int],
    streams: list[int],
    dialog: Dialog,
    steady: float,
    shared: Shared,
) -> MixedResult:
    limits = dialog.limits()
    dialog.fixed_pool(f"mixed {kind}")
    if dialog.driver_agent:  # the freshness probe needs the acknowledgements on its clock
        raise DbbenchError(
            f"--driver-agent: mixed {kind} drives its users from this host "
            "(--driver-processes N|auto)"
        )
    freshness, analytics = shared.freshness, shared.analytics_node
    if freshness < 0:
        raise DbbenchError(f"--freshness must not be negative, not {freshness:g}")
    if not 1 <= analytics <= len(engines):
        raise DbbenchError(
            f"--analytics-node must name one of the {len(engines)} --engine URLs "
            f"(1 to {len(engines)}), not {analytics}"
        )
    cfg, shown = dialog.start(users[0], steady)
    given = _baselines(shared.baseline)
    folder = shared.out if shared.out is not None else default_run_name("mixed", kind)
    seed0 = shared.seed if shared.seed is not None else seed_from_time(datetime.now())
    for count in streams:  # every point's streams checked before the first is measured
        ahead = Settings(cfg, 1.0, seed0, shared.query_timeout, shared.refresh)  # SF: unknown
        check_options(ahead.options(count), scale_factor=False)
    found: list[float] = []

    def check(scope: RunScope) -> None:  # refused: nothing is left behind
        require_shareable(scope.engine, cfg.driver_processes)
        found.append(precheck(scope, users).scale_factor)

    with open_run(
        engines, out_dir=folder, force=shared.force, must_exist=True, check=check
    ) as scope:
        settings = Settings(
            cfg, found[0], seed0, shared.query_timeout, shared.refresh, freshness, analytics - 1
        )
        workload = MixedWorkload(
            users=users, streams=streams, settings=settings, rt_limit=limits.avg,
            rt_extra=limits.config(), shown=shown, given=given, kind=kind,
        )  # fmt: skip
        result = workload.run(scope)
    typer.echo(render_mixed(result, "text"))
    typer.echo(f"wrote {scope.result_path}", err=True)
    return result


def measuring(name: str) -> Callable[[Callable[..., None]], None]:
    def register_command(fn: Callable[..., None]) -> None:
        app.command(name)(grouped(fn, {"dialog": DIALOG, "shared": SHARED}))

    return register_command


@measuring("run")
def run_cmd(
    engines: EngineUrls,
    users: Annotated[int, typer.Option("--users", "-u", help="Simulated o2c users.")],
    dialog: Dialog,
    shared: Shared,
    streams: Streams = 2,
    steady: Steady = 900.0,
) -> None:
    """N users and S streams at once after a ramp-up, a measured window; with an o2c-only
    run of the same users and a streams-only run of the same S (unless --baseline)."""
    if users < 1 or streams < 1:
        raise DbbenchError("--users and --streams must be at least 1")
    result = _measure("run", engines, [users], [streams], dialog, steady, shared)
    if not summarize_mixed(result).passed:
        raise typer.Exit(ExitCode.INVALID_RUN)


@measuring("frontier")
def frontier_cmd(
    engines: EngineUrls,
    dialog: Dialog,
    shared: Shared,
    users: Annotated[
        str, typer.Option("--users", "-u", help="User counts of the grid, e.g. 50,100,200.")
    ] = "10,20",
    streams: Annotated[
        str, typer.Option("--streams", "-S", help="Stream counts of the grid, e.g. 1,2,4.")
    ] = "1,2",
    steady: Steady = 300.0,
) -> None:
    """A grid of users x streams: analytical against OLTP throughput at the RT limit (the
    HTAP frontier), with the o2c-only and streams-only end points."""
    grid = _series(users, "users"), _series(streams, "streams")
    result = _measure("frontier", engines, *grid, dialog, steady, shared)
    if not summarize_mixed(result).valid:
        raise typer.Exit(ExitCode.INVALID_RUN)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="mixed")
