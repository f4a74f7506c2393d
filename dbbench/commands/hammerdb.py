"""``dbbench hammerdb check|build|run|import|export``: HammerDB as an external load driver.

dbbench writes HammerDB's ``auto`` script (no password in it), runs the installed
``hammerdbcli`` with a private ``TMP`` in the run directory, shows its progress, reads its
job store into a ``dbbench-hammerdb-result`` and keeps HammerDB's own outputs beside it.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.install import HammerDBInstall, HammerDBMissing, find_hammerdb
from dbbench.drivers.hammerdb.jobstore import JobStoreError, list_jobs, read_job
from dbbench.drivers.hammerdb.runner import Invocation, run_hammerdb
from dbbench.drivers.hammerdb.script import (
    BENCHMARK_NAME,
    NO_PASSWORD,
    HdbDb,
    Target,
    TproccOptions,
    TprochOptions,
    Workload,
    build_script,
    run_script,
    target_for,
)
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.drivers.url import EngineURL, parse_url, redact
from dbbench.errors import DbbenchError, ExitCode
from dbbench.reports.hammerdb_export import (
    JOB_REPORT_SCHEMA,
    from_job_report,
    to_job_report,
    validate_job_report,
)
from dbbench.reports.loading import load_any_result
from dbbench.reports.model import EngineInfo, HammerDBResult, kit_version
from dbbench.reports.o2c_render import is_o2c_result, load_o2c

RESULT_FILE = "result.json"
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


def _hdb_db(url: EngineURL) -> tuple[HdbDb, EngineInfo]:
    """HammerDB's database type for the URL, and what dbbench can learn about the engine."""
    info = EngineInfo(name=url.scheme, url=redact(url), dialect=url.scheme)
    scheme = url.scheme
    if scheme in ("postgresql", "postgres"):
        db: HdbDb = "pg"
    elif scheme in ("mariadb", "mysql"):
        db = "maria" if scheme == "mariadb" else "mysql"
    else:
        raise DbbenchError(
            f"HammerDB drives PostgreSQL and MariaDB/MySQL here, not {scheme!r} "
            "(use postgresql://... or mysql://... / mariadb://...)"
        )
    probe = url
    if db == "pg":  # the target database may not exist yet: ask the server's own
        probe = EngineURL(
            url.scheme, url.driver, url.username, url.password, url.host, url.port, "postgres"
        )
    try:
        engine = open_engine(probe)
        try:
            info = engine_info(engine, str(url))
        finally:
            engine.close()
    except Exception:  # disclosure only: HammerDB itself will say if the server is not there
        return db, info
    if db == "mysql" and "mariadb" in info.version.lower():
        db = "maria"
    info.name = {"pg": "postgresql", "maria": "mariadb", "mysql": "mysql"}[db]
    return db, info


def _run_dir(out: Path | None, workload: Workload, engine: str, force: bool) -> Path:
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = Path("runs") / f"hammerdb-{workload}-{engine}-{stamp}"
    if out.exists() and any(out.iterdir()) and not force:
        raise DbbenchError(f"run directory {out} is not empty (use --force to reuse it)")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _progress(quiet: bool) -> Any:
    def show(line: str) -> None:
        if not quiet and _PROGRESS.search(line):
            typer.echo(f"hammerdb: {line}", err=True)

    return show


def _invoke(
    install: HammerDBInstall,
    target: Target,
    url: EngineURL,
    workload: Workload,
    opts: TproccOptions | TprochOptions,
    out: Path,
    step: str,
    quiet: bool,
) -> Invocation:
    script = build_script if step == "build" else run_script
    # HammerDB needs a non-empty value; its MariaDB/MySQL drivers send none for "null"
    password = url.password or (NO_PASSWORD if target.db == "pg" else "null")
    if not quiet:
        typer.echo(
            f"dbbench: HammerDB {install.version} {step} {BENCHMARK_NAME[workload]}", err=True
        )
    return run_hammerdb(
        install,
        script(target, workload, opts),
        out,
        step,
        password=password,
        owner_password=secrets.token_hex(12),  # the schema owner's; only the build needs it
        on_line=_progress(quiet),
    )


def _failed_result(
    workload: Workload, info: EngineInfo, install: HammerDBInstall, errors: list[str]
) -> HammerDBResult:
    return HammerDBResult(
        benchmark=BENCHMARK_NAME[workload],  # type: ignore[arg-type]
        jobid="",
        database={"postgresql": "PostgreSQL", "mariadb": "MariaDB"}.get(info.name, info.name),
        engine=info,
        system=system_info(),
        kit_version=kit_version(),
        hammerdb_version=install.version,
        created=time.time(),
        status="failed",
        errors=errors,
    )


def _finish(result: HammerDBResult, out: Path) -> None:
    path = out / RESULT_FILE
    result.write(path)
    if result.status == "complete":
        if result.benchmark == "TPROC-C":
            typer.echo(
                f"{result.benchmark} {result.engine.name}: {result.nopm:,.0f} NOPM, "
                f"{result.tpm:,.0f} TPM ({result.active_virtual_users} virtual users)"
            )
        else:
            typer.echo(
                f"{result.benchmark} {result.engine.name}: geometric mean "
                f"{result.geomean_seconds} s over {result.queries} queries"
            )
    typer.echo(f"wrote {path}", err=True)
    if result.status != "complete":
        for error in result.errors[:5]:
            typer.echo(f"dbbench: hammerdb: {error}", err=True)
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
    else:
        typer.echo(install.describe())
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
        build_virtual_users=min(build_vus, warehouses),
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
    url = parse_url(engine)
    db, info = _hdb_db(url)
    target = target_for(url, db, owner)
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
        opts = TprochOptions(scale_factor, virtual_users, build_vus, query_sets, refresh, parallel)
    install = _install(hammerdb)
    install.driver_for({"pg": "postgresql", "maria": "mariadb", "mysql": "mysql"}[db])
    run_dir = _run_dir(out, wl, info.name, force)
    build_info: dict[str, Any] = {}
    try:
        if build or build_only:
            b = _invoke(install, target, url, wl, opts, run_dir, "build", quiet)
            build_info = {"jobid": b.jobid, "seconds": round(b.seconds, 3), "ok": b.ok}
            if not b.ok:
                result = _failed_result(wl, info, install, ["schema build failed", *b.failures])
                result.build = build_info
                _finish(result, run_dir)
            if build_only:
                (run_dir / "build.json").write_text(json.dumps(build_info, indent=2) + "\n")
                typer.echo(f"built {BENCHMARK_NAME[wl]} in {b.seconds:.0f} s (job {b.jobid})")
                return
        r = _invoke(install, target, url, wl, opts, run_dir, "run", quiet)
    except KeyboardInterrupt:
        result = _failed_result(wl, info, install, ["interrupted (Ctrl-C); HammerDB was stopped"])
        result.build = build_info
        result.write(run_dir / RESULT_FILE)
        raise
    if r.jobid is None:
        result = _failed_result(wl, info, install, r.failures)
    else:
        try:
            result = read_job(
                r.job_store,
                r.jobid,
                kit_version=kit_version(),
                hammerdb_version=install.version,
                system=system_info(),
                source="run",
            )
        except JobStoreError as exc:
            result = _failed_result(wl, info, install, [*r.failures, str(exc)])
        else:
            hdb_version = result.engine.version
            result.engine = info
            result.engine.version = info.version or hdb_version
            result.errors = list(dict.fromkeys([*r.failures, *result.errors]))
            if result.errors:
                result.status = "failed"
    result.build = build_info
    _finish(result, run_dir)


@app.command("import")
def import_command(
    source: Annotated[Path, typer.Argument(help="A hammer.DB job store or a job-report JSON.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The dbbench result file.")],
    job: Annotated[
        str | None, typer.Option("--job", help="Job id (default: the newest run).")
    ] = None,
    list_only: Annotated[bool, typer.Option("--list", help="List the store's jobs.")] = False,
) -> None:
    """Bring a HammerDB result (from any machine) into a dbbench result file."""
    if not source.is_file():
        raise DbbenchError(f"no such file: {source}")
    with source.open("rb") as f:
        head = f.read(16)
    if head.startswith(b"SQLite format 3"):
        if list_only:
            for j in list_jobs(source):
                typer.echo(f"{j['jobid']}  {j['db']:<12} {j['bm']:<6} {j['timestamp']}")
            return
        result = read_job(source, job, kit_version=kit_version())
    else:
        try:
            doc = json.loads(source.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DbbenchError(
                f"{source}: neither a HammerDB job store (SQLite) nor a job-report JSON ({exc})"
            ) from None
        problems = validate_job_report(doc)
        if problems:
            raise DbbenchError(f"{source}: not a valid {JOB_REPORT_SCHEMA}: {problems[0]}")
        result = from_job_report(doc, kit_version=kit_version())
    result.write(output)
    typer.echo(f"imported {result.benchmark} job {result.jobid} ({result.status}) -> {output}")


@app.command("export")
def export_command(
    result: Annotated[
        Path, typer.Argument(help="A dbbench result file (TPC-H, o2c, HammerDB) or run directory.")
    ],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE.")] = None,
) -> None:
    """Any dbbench result as a hammerdb-job-report-v1 JSON (HammerDB's result artifact); an
    o2c result becomes a TPROC-C-like artifact labelled dbbench o2c (unofficial)."""
    if is_o2c_result(result):
        o2c = load_o2c(result)
        if not o2c.probes:
            raise DbbenchError(f"{result}: the o2c result holds no probe: nothing to export")
        doc = to_job_report(o2c)
    else:
        doc = to_job_report(load_any_result(result))
    problems = validate_job_report(doc)
    if problems:  # a bug of ours, never the user's: say what
        raise DbbenchError(f"export does not validate: {'; '.join(problems)}")
    text = json.dumps(doc, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="hammerdb")


__all__ = ["DriversError", "HammerDBMissing", "register"]
