"""HammerDB's build -> run -> read flow, inside the kit's one run lifecycle.

:func:`connect` maps an engine URL onto HammerDB's database (``dbset db``) from the engine's
own declaration (:attr:`EngineFacts.hammerdb_db`) and probes the server with the kit's own
engine first: an unreachable server or a refused password is one line before HammerDB
starts. :class:`HammerDBWorkload` is the build and the timed run as a workload of the kit's
protocol (prepare / check / run / cleanup); :func:`run_flow` runs it in a marked, locked run
directory (:func:`dbbench.drivers.lifecycle.open_run`) while holding the database's
benchmark lock (a second workload on the same database is refused in one line), and reads
HammerDB's job store into a :class:`HammerDBResult`.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dbbench.drivers.engine import Engine, EngineFacts
from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.hammerdb.install import HammerDBInstall
from dbbench.drivers.hammerdb.jobstore import JobStoreError, read_job
from dbbench.drivers.hammerdb.runner import JOB_STORE, Invocation, run_hammerdb
from dbbench.drivers.hammerdb.script import (
    BENCHMARK_NAME,
    DATABASES,
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
from dbbench.drivers.lifecycle import RunScope, open_engines, open_run
from dbbench.drivers.registry import open_engine, spec_for
from dbbench.drivers.rundir import default_run_name
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.drivers.url import EngineURL, redact
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import RESULT_FILE, EngineInfo, kit_version
from dbbench.reports.safeio import write_text

BUILD_FILE = "build.json"
#: What a HammerDB run writes into its run directory (``--force`` removes only these).
OWN_FILES = ("build.tcl", "run.tcl", "hammerdb-build.log", "hammerdb-run.log", BUILD_FILE)
OWN_DIRS = ("hammerdb-build", "hammerdb-run")
#: The database HammerDB's PostgreSQL build connects to first (its ``pg_defaultdbase``);
#: the MariaDB/MySQL drivers connect to the server without one.
_SERVER_DATABASE: dict[HdbDb, str | None] = {"pg": "postgres", "maria": None, "mysql": None}
#: HammerDB's MariaDB driver reads this password as "none" (it then sends no password).
_MARIA_NO_PASSWORD = "null"


@dataclass(frozen=True)
class Connection:
    """An engine URL mapped onto HammerDB, with what the probe learnt of its server."""

    url: EngineURL
    target: Target
    info: EngineInfo
    exists: bool  # the database HammerDB builds in exists already (it can be locked)

    @property
    def password(self) -> str:
        """The password HammerDB is given: the URL's, or what its driver reads as none."""
        if self.url.password:
            return self.url.password
        return NO_PASSWORD if self.target.db == "pg" else _MARIA_NO_PASSWORD


def _facts(url: EngineURL) -> EngineFacts:
    """The declaration of the engine that serves ``url`` (its class's ``facts``)."""
    spec = spec_for(url)
    try:
        module = importlib.import_module(spec.module)
    except ImportError as exc:
        raise DriversError(f"engine {spec.name!r} could not load ({exc}): {spec.install}") from None
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Engine)
            and getattr(value, "name", None) == spec.name
        ):
            return value.facts
    return EngineFacts()


def _at(url: EngineURL, database: str | None) -> EngineURL:
    return replace(url, database=database)


def _probe(url: EngineURL) -> tuple[str, EngineInfo]:
    """Open ``url`` with the kit's engine: (server version, disclosure); errors raise."""
    engine = open_engine(url)
    try:
        version = engine.version()  # the first query: a refused login or no server fail here
        return version, engine_info(engine, str(url))
    finally:
        engine.close()


def connect(url: EngineURL, owner: str | None = None) -> Connection:
    """Map ``url`` onto HammerDB and probe its server (one-line errors, nothing started)."""
    declared = _facts(url).hammerdb_db
    if declared not in DATABASES:
        raise DriversError(
            f"HammerDB drives PostgreSQL and MariaDB/MySQL here, not {url.scheme!r} "
            "(use postgresql://... or mysql://... / mariadb://...)"
        )
    db: HdbDb = declared
    target = target_for(url, db, owner)  # a bad URL is refused before any connection
    try:
        version, info = _probe(_at(url, _SERVER_DATABASE[db]))
    except DriversError as exc:
        raise DriversError(f"HammerDB: cannot use the server of {redact(url)}: {exc}") from None
    if db == "mysql" and version.lower().startswith("mariadb"):
        db = "maria"
        target = replace(target, db=db)
    if db == "mysql" and not url.password:
        raise DriversError(
            "HammerDB's MySQL driver always sends a password: give the URL one "
            "(mysql://USER:PASSWORD@...)"
        )
    if db == "maria" and (url.password or "").lower() == _MARIA_NO_PASSWORD:
        raise DriversError(
            "HammerDB's MariaDB driver reads the password 'null' as no password: "
            "this server's password cannot be given to HammerDB"
        )
    info.name = DATABASES[db].engine
    exists = True
    try:
        _probe(url)
    except DriversError:  # the server answered above: the database is not there (yet)
        exists = False
    return Connection(url, target, info, exists)


@dataclass
class Plan:
    """What to do: the workload, its options, build and/or run."""

    workload: Workload
    options: TproccOptions | TprochOptions
    build: bool = False
    build_only: bool = False


@dataclass
class Outcome:
    """What :func:`run_flow` did: the result (None after ``--build-only``) and the build."""

    run_dir: Path
    result: HammerDBResult | None
    build: dict[str, Any] = field(default_factory=dict)

    @property
    def result_path(self) -> Path:
        return self.run_dir / RESULT_FILE


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped HammerDB; a failed result was written (:attr:`path`)."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path


def default_run_dir(workload: Workload, engine: str) -> Path:
    return default_run_name("hammerdb", workload, engine)


def new_owner_password() -> str:
    """The password of the role HammerDB's PostgreSQL build creates (never shown)."""
    return secrets.token_hex(12)


def remove_own_files(run_dir: Path) -> None:
    """What an earlier HammerDB run wrote into ``run_dir``; symbolic links are unlinked,
    never followed."""
    for name in (*OWN_FILES, *OWN_DIRS):
        path = run_dir / name
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)


def failed_result(
    conn: Connection, workload: Workload, install: HammerDBInstall, errors: list[str]
) -> HammerDBResult:
    return HammerDBResult(
        benchmark=BENCHMARK_NAME[workload],  # type: ignore[arg-type]
        jobid="",
        database=DATABASES[conn.target.db].display,
        engine=conn.info,
        system=system_info(),
        kit_version=kit_version(),
        hammerdb_version=install.version,
        created=time.time(),
        status="failed",
        errors=errors,
    )


class HammerDBWorkload:
    """TPROC-C or TPROC-H with HammerDB as a :class:`~dbbench.drivers.lifecycle.Workload`.

    ``prepare`` is the schema build (a failed build returns its failed result; a database
    the build made is then locked for the run), ``check`` probes the database, ``run`` is the
    timed run (the build first when the plan asks for it) read from HammerDB's job store,
    ``cleanup`` releases the lock. Ctrl-C writes a failed result and raises
    :class:`Interrupted`. :attr:`build` is what the build did."""

    def __init__(
        self,
        install: HammerDBInstall,
        conn: Connection,
        plan: Plan,
        *,
        on_line: Callable[[str], None] | None = None,
        on_step: Callable[[str], None] | None = None,
        owner_password: str | None = None,
    ) -> None:
        self.install, self.conn, self.plan = install, conn, plan
        self.on_line, self.on_step, self.owner_password = on_line, on_step, owner_password
        self.build: dict[str, Any] = {}
        self._lock: list[Engine] = []  # the database's lock, when the build made the database

    def prepare(self, scope: RunScope) -> HammerDBResult | None:
        """The schema build; its failed result, or None when it succeeded."""
        with self._stopped(scope):
            password = self.owner_password or new_owner_password()
            b = self._invoke(scope, "build", password)
            self.build = {"jobid": b.jobid, "seconds": round(b.seconds, 3), "ok": b.ok}
            if not b.ok:
                return self._failed(["schema build failed", *b.failures])
            self._take_lock()
        return None

    def check(self, scope: RunScope) -> list[str]:
        try:
            _probe(self.conn.url)
        except DriversError as exc:
            return [one_line(exc)]
        return []

    def run(self, scope: RunScope) -> HammerDBResult:
        if self.plan.build or self.plan.build_only:
            failed = self.prepare(scope)
            if failed is not None:
                return failed
        self._take_lock()
        with self._stopped(scope):
            r = self._invoke(scope, "run", "")
        result = _read(self.install, self.conn, self.plan, r)
        result.build = self.build
        return result

    def cleanup(self, scope: RunScope) -> None:
        while self._lock:
            with contextlib.suppress(Exception):
                self._lock.pop().close()

    def _failed(self, errors: list[str]) -> HammerDBResult:
        result = failed_result(self.conn, self.plan.workload, self.install, errors)
        result.build = self.build
        return result

    def _take_lock(self) -> None:
        """The build made the database: nothing else may run on it now."""
        if not self.conn.exists and not self._lock:
            self._lock += open_engines([self.conn.url.render(hide_password=False)])

    @contextlib.contextmanager
    def _stopped(self, scope: RunScope) -> Iterator[None]:
        try:
            yield
        except KeyboardInterrupt:
            result = self._failed(["interrupted (Ctrl-C); HammerDB was stopped"])
            raise Interrupted(scope.write(result)) from None

    def _invoke(self, scope: RunScope, step: str, owner_password: str) -> Invocation:
        if scope.out_dir is None:
            raise DriversError("a HammerDB run needs a run directory")
        install, conn, plan = self.install, self.conn, self.plan
        script = build_script if step == "build" else run_script
        with scope.noise.phase(f"HammerDB {step}"):  # its client is the kit's child
            if self.on_step is not None:
                self.on_step(f"HammerDB {install.version} {step} {BENCHMARK_NAME[plan.workload]}")
            return run_hammerdb(
                install,
                script(conn.target, plan.workload, plan.options),
                scope.out_dir,
                step,
                password=conn.password,
                secrets=[conn.url.password or "", owner_password],
                owner_password=owner_password,
                on_line=self.on_line,
            )


def run_flow(workload: HammerDBWorkload, run_dir: Path, *, force: bool = False) -> Outcome:
    """Build and/or run ``workload`` in ``run_dir`` (absolute from here on: HammerDB starts
    in its own folder) under the run lifecycle; the result is written to
    ``run_dir/result.json`` (after ``--build-only``: the build to ``build.json``)."""
    run_dir = run_dir.absolute()
    conn, plan = workload.conn, workload.plan
    url = conn.url.render(hide_password=False)
    outcome = Outcome(run_dir, None)
    with open_run([url] if conn.exists else [], out_dir=run_dir, force=force) as scope:
        remove_own_files(run_dir)
        try:
            if plan.build_only:
                outcome.result = workload.prepare(scope)
                if outcome.result is None:
                    write_text(run_dir / BUILD_FILE, json.dumps(workload.build, indent=2) + "\n")
            else:
                outcome.result = workload.run(scope)
        finally:
            outcome.build = workload.build
            workload.cleanup(scope)
        if outcome.result is not None:
            scope.write(outcome.result)
    return outcome


def _read(install: HammerDBInstall, conn: Connection, plan: Plan, r: Invocation) -> HammerDBResult:
    """The run's job out of HammerDB's job store, with dbbench's disclosure of the engine."""
    if r.jobid is None:
        return failed_result(conn, plan.workload, install, r.failures)
    try:
        result = read_job(
            r.tmp / JOB_STORE,
            r.jobid,
            kit_version=kit_version(),
            hammerdb_version=install.version,
            system=system_info(),
            source="run",
        )
    except JobStoreError as exc:
        return failed_result(conn, plan.workload, install, [*r.failures, str(exc)])
    hdb_version = result.engine.version
    result.engine = conn.info
    result.engine.version = conn.info.version or hdb_version
    result.errors = list(dict.fromkeys([*r.failures, *result.errors]))
    if result.errors:
        result.status = "failed"
    return result
