"""``dbbench hammerdb check|build|run|import|export``: HammerDB as an external load driver.

The command parses and prints; the flow (probe, run lifecycle, build, run, read) is
:mod:`dbbench.drivers.hammerdb.flow`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from dbbench.commands.options import OutputFile
from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.flow import (
    HammerDBWorkload,
    Interrupted,
    Plan,
    connect,
    default_run_dir,
    run_flow,
)
from dbbench.drivers.hammerdb.install import HammerDBInstall, HammerDBMissing, find_hammerdb
from dbbench.drivers.hammerdb.jobstore import list_jobs, read_job
from dbbench.drivers.hammerdb.script import (
    BENCHMARK_NAME,
    DATABASES,
    TproccOptions,
    TprochOptions,
    Workload,
)
from dbbench.drivers.url import parse_url
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.errors import ReportsError
from dbbench.reports.escape import terminal
from dbbench.reports.families import read_result
from dbbench.reports.hammerdb.export import (
    JOB_REPORT_SCHEMA,
    from_job_report,
    load_job_report,
    to_job_report,
    validate_job_report,
)
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import kit_version
from dbbench.reports.safeio import OutputError, write_text

app = typer.Typer(
    help="Drive an installed HammerDB (TPROC-C, TPROC-H); import and export its results.",
    no_args_is_help=True,
)

HammerDir = Annotated[
    Path | None,
    typer.Option(
        "--hammerdb",
        help="HammerDB directory (else $DBBENCH_HAMMERDB, else PATH).",
        show_default=False,
    ),
]
EngineOpt = Annotated[
    str, typer.Option("--engine", "-e", help="PostgreSQL or MariaDB/MySQL engine URL.")
]
OutOpt = Annotated[
    Path | None, typer.Option("--out", "-o", help="Run directory (default: runs/hammerdb-...).")
]
Force = Annotated[bool, typer.Option("--force", help="Reuse an existing run directory.")]
_PROGRESS = re.compile(
    r"Vuser \d+:RUNNING|Virtual Users Created|\btpm\b|query \d+ completed|TEST RESULT|"
    r"Geometric mean|query set\(s\)|SCHEMA COMPLETE|FINISHED|Error|jobid=",
    re.I,
)


def _workload(text: str) -> Workload:
    key = text.lower().replace("-", "").replace("_", "")
    if key in ("tprocc", "tpcc"):
        return "tprocc"
    if key in ("tproch", "tpch"):
        return "tproch"
    raise DbbenchError(f"workload {text!r}: use tprocc or tproch")


def _install(path: Path | None) -> HammerDBInstall:
    install = find_hammerdb(path)
    if not install.usable:
        raise DbbenchError(install.describe())
    return install


def _progress(quiet: bool) -> Any:
    def show(line: str) -> None:
        if not quiet and _PROGRESS.search(line):
            typer.echo(f"hammerdb: {terminal(line)}", err=True)

    return show


def _step(quiet: bool) -> Any:
    def show(text: str) -> None:
        if not quiet:
            typer.echo(f"dbbench: {text}", err=True)

    return show


def _write(path: Path, text: str) -> None:
    try:
        write_text(path, text)
    except OutputError as exc:
        raise DbbenchError(str(exc)) from None


def _finish(result: HammerDBResult, path: Path) -> None:
    if result.status == "complete":
        name = terminal(result.engine.name)
        if result.benchmark == "TPROC-C":
            typer.echo(
                f"{result.benchmark} {name}: {result.nopm:,.0f} NOPM, "
                f"{result.tpm:,.0f} TPM ({result.active_virtual_users} virtual users)"
            )
        else:
            typer.echo(
                f"{result.benchmark} {name}: geometric mean "
                f"{result.geomean_seconds} s over {result.queries} queries"
            )
    typer.echo(f"wrote {path}", err=True)
    if result.status != "complete":
        for error in result.errors[:5]:
            typer.echo(f"dbbench: hammerdb: {terminal(error)}", err=True)
        typer.echo("dbbench: the HammerDB run is invalid; its outputs are kept", err=True)
        raise typer.Exit(ExitCode.INVALID_RUN)


@app.command("check")
def check(hammerdb: HammerDir = None, as_json: bool = typer.Option(False, "--json")) -> None:
    """Is a usable HammerDB installed? Where, which version, which database drivers."""
    install = find_hammerdb(hammerdb)
    if as_json:
        doc = {
            "usable": install.usable,
            "root": str(install.root) if install.root else None,
            "found_by": install.found_by,
            "version": install.version,
            "drivers": install.drivers,
            "problem": install.problem,
            "hint": install.hint,
        }
        typer.echo(json.dumps(doc, indent=2))
    elif install.usable:
        typer.echo(install.describe())
    else:
        typer.echo(f"dbbench: {install.describe()}", err=True)
    if not install.usable:
        raise typer.Exit(ExitCode.USER_ERROR)


def _tprocc(
    warehouses: int, vus: int, build_vus: int, rampup: float, duration: float,
    all_warehouses: bool, keying: bool, time_profile: bool,
) -> TproccOptions:  # fmt: skip
    for name, value in (
        ("--warehouses", warehouses),
        ("--virtual-users", vus),
        ("--build-vus", build_vus),
    ):
        if value < 1:
            raise DbbenchError(f"{name} must be at least 1, got {value}")
    if duration <= 0:
        raise DbbenchError(f"--duration must be positive, got {duration}")
    return TproccOptions(
        warehouses=warehouses,
        virtual_users=vus,
        build_workers=min(build_vus, warehouses),
        rampup_minutes=rampup,
        duration_minutes=duration,
        all_warehouses=all_warehouses,
        keying_and_thinking=keying,
        time_profile=time_profile,
    )


_OWNER_HELP = "PostgreSQL: the role HammerDB creates to own its schema (default: the database)."
_KEYING_HELP = "TPROC-C keying and thinking time."


@app.command("run")
def run(
    workload: Annotated[str, typer.Argument(help="tprocc or tproch.")],
    engine: EngineOpt,
    out: OutOpt = None,
    force: Force = False,
    hammerdb: HammerDir = None,
    build: Annotated[bool, typer.Option("--build", help="Build the schema first.")] = False,
    build_only: Annotated[bool, typer.Option("--build-only", help="Only build.")] = False,
    owner: Annotated[str | None, typer.Option("--owner", help=_OWNER_HELP)] = None,
    warehouses: Annotated[int, typer.Option("--warehouses", "-w", help="TPROC-C warehouses.")] = 1,
    virtual_users: Annotated[int, typer.Option("--virtual-users", "-u", help="Virtual users.")] = 1,
    build_vus: Annotated[int, typer.Option("--build-vus", help="Virtual users building.")] = 1,
    rampup: Annotated[float, typer.Option("--rampup", help="TPROC-C rampup, minutes.")] = 0.0,
    duration: Annotated[float, typer.Option("--duration", help="TPROC-C run, minutes.")] = 1.0,
    all_warehouses: Annotated[bool, typer.Option("--all-warehouses")] = False,
    keying: Annotated[bool, typer.Option("--keying-and-thinking", help=_KEYING_HELP)] = False,
    time_profile: Annotated[bool, typer.Option("--time-profile/--no-time-profile")] = True,
    scale_factor: Annotated[int, typer.Option("--scale-factor", "-s", help="TPROC-H SF.")] = 1,
    query_sets: Annotated[int, typer.Option("--query-sets", help="TPROC-H query sets per VU.")] = 1,
    refresh: Annotated[bool, typer.Option("--refresh", help="TPROC-H refresh on.")] = False,
    parallel: Annotated[int, typer.Option("--degree-of-parallel", help="TPROC-H, PostgreSQL.")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:  # fmt: skip
    """Build and/or run TPROC-C or TPROC-H with HammerDB; write result.json in --out."""
    wl = _workload(workload)
    conn = connect(parse_url(engine), owner)  # one line, before HammerDB starts
    opts: TproccOptions | TprochOptions
    if wl == "tprocc":
        opts = _tprocc(
            warehouses,
            virtual_users,
            build_vus,
            rampup,
            duration,
            all_warehouses,
            keying,
            time_profile,
        )
    else:
        if min(scale_factor, virtual_users, query_sets, parallel) < 1:
            raise DbbenchError("--scale-factor, --virtual-users, --query-sets must be at least 1")
        opts = TprochOptions(
            scale_factor=scale_factor, virtual_users=virtual_users, build_workers=build_vus,
            query_sets=query_sets, refresh=refresh, degree_of_parallel=parallel,
        )  # fmt: skip
    install = _install(hammerdb)
    install.driver_for(DATABASES[conn.target.db].engine)
    run_dir = out if out is not None else default_run_dir(wl, conn.info.name)
    plan = Plan(wl, opts, build=build, build_only=build_only)
    try:
        flow = HammerDBWorkload(install, conn, plan, on_line=_progress(quiet), on_step=_step(quiet))
        outcome = run_flow(flow, run_dir, force=force)
    except Interrupted as exc:
        typer.echo(
            f"dbbench: interrupted; HammerDB was stopped; partial result: {exc.path}", err=True
        )
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    if outcome.result is None:  # --build-only
        seconds = outcome.build.get("seconds", 0.0)
        job = outcome.build.get("jobid")
        typer.echo(f"built {BENCHMARK_NAME[wl]} in {seconds:.0f} s (job {job})")
        return
    _finish(outcome.result, outcome.result_path)


def _read_job_report(source: Path) -> HammerDBResult:
    try:
        doc = load_job_report(source.read_bytes())
    except ValueError as exc:
        raise DbbenchError(
            f"{source}: neither a HammerDB job store (SQLite) nor a job-report JSON ({exc})"
        ) from None
    problems = validate_job_report(doc)
    if problems:
        raise DbbenchError(f"{source}: not a valid {JOB_REPORT_SCHEMA}: {problems[0]}")
    return from_job_report(doc, kit_version=kit_version())


@app.command("import")
def import_command(
    source: Annotated[Path, typer.Argument(help="A hammer.DB job store or a job-report JSON.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="The dbbench result file.")
    ] = None,
    job: Annotated[
        str | None, typer.Option("--job", help="Job id (default: the newest run).")
    ] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the store's jobs.")] = False,
    hammerdb_version: Annotated[
        str, typer.Option("--hammerdb-version", help="The HammerDB version that made the job.")
    ] = "",
) -> None:
    """Bring a HammerDB result (from any machine) into a dbbench result file."""
    if not source.is_file():
        raise DbbenchError(f"no such file: {source}")
    with source.open("rb") as f:
        head = f.read(16)
    is_store = head.startswith(b"SQLite format 3")
    if list_only:
        if not is_store:
            raise DbbenchError(f"{source}: --list needs a HammerDB job store (hammer.DB)")
        for j in list_jobs(source):
            typer.echo(
                terminal(
                    f"{j['jobid']}  {j['db']:<12} {j['bm']:<6} {j['kind']:<5} "
                    f"{j['result']:<20} {j['timestamp']}"
                ).rstrip()
            )
        return
    if output is None:
        raise DbbenchError("name the dbbench result file to write: -o FILE")
    if is_store:
        result = read_job(source, job, kit_version=kit_version())
    else:
        result = _read_job_report(source)
    if hammerdb_version:
        result.hammerdb_version = hammerdb_version
    _write(output, result.to_json())
    typer.echo(
        terminal(f"imported {result.benchmark} job {result.jobid} ({result.status}) -> {output}")
    )


@app.command("export")
def export_command(
    result: Annotated[
        Path, typer.Argument(help="A dbbench result file (TPC-H, o2c, HammerDB) or run directory.")
    ],
    output: OutputFile = None,
) -> None:
    """Any dbbench result as a hammerdb-job-report-v1 JSON (HammerDB's result artifact); an
    o2c result becomes a TPROC-C-like artifact labelled dbbench o2c (unofficial)."""
    _, loaded, _ = read_result(result)
    try:
        doc = to_job_report(loaded)
    except (ReportsError, ValueError) as exc:
        raise DbbenchError(f"{result}: {exc}") from None
    problems = validate_job_report(doc)
    if problems:  # a bug of ours, never the user's: say what
        raise DbbenchError(f"export does not validate: {'; '.join(problems)}")
    text = json.dumps(doc, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        _write(output, text)
        typer.echo(f"wrote {output}", err=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="hammerdb")


__all__ = ["DriversError", "HammerDBMissing", "register"]
