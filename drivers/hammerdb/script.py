"""The ``auto`` scripts dbbench hands to ``hammerdbcli``: an engine URL mapped onto HammerDB's
connection settings, the workload's options, and markers dbbench reads back from the output.

No password is ever written into a script: the script reads it from the environment of the
``hammerdbcli`` process (:data:`PASSWORD_ENV`, :data:`OWNER_PASSWORD_ENV`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL

PASSWORD_ENV = "DBBENCH_HDB_PASSWORD"
OWNER_PASSWORD_ENV = "DBBENCH_HDB_OWNER_PASSWORD"
JOB_MARKER = "DBBENCH-JOBID"
# HammerDB substitutes setting values unquoted into the build's Tcl calls: an empty password
# drops an argument ("wrong # args"). A server that trusts the client ignores the value.
NO_PASSWORD = "dbbench-no-password"

Workload = Literal["tprocc", "tproch"]
HdbDb = Literal["pg", "maria", "mysql"]
BENCHMARK = {"tprocc": "TPC-C", "tproch": "TPC-H"}
BENCHMARK_NAME = {"tprocc": "TPROC-C", "tproch": "TPROC-H"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")


@dataclass(frozen=True)
class HdbDatabase:
    """A database HammerDB drives: its ``dbset db`` name, the name HammerDB shows (its job
    store's ``db``), and the dbbench engine name a result records."""

    db: HdbDb
    display: str
    engine: str


#: HammerDB's own vocabulary (its ``config/database.xml``), stated once.
DATABASES: dict[HdbDb, HdbDatabase] = {
    "pg": HdbDatabase("pg", "PostgreSQL", "postgresql"),
    "maria": HdbDatabase("maria", "MariaDB", "mariadb"),
    "mysql": HdbDatabase("mysql", "MySQL", "mysql"),
}


@dataclass(kw_only=True)
class WorkloadOptions:
    """What both HammerDB workloads take: how many run the timed part, how many build."""

    virtual_users: int = 1
    #: the schema build's workers: virtual users (TPROC-C's ``num_vu``, at most one per
    #: warehouse) or threads (TPROC-H's ``num_tpch_threads``)
    build_workers: int = 1


@dataclass(kw_only=True)
class TproccOptions(WorkloadOptions):
    warehouses: int = 1
    rampup_minutes: float = 0.0
    duration_minutes: float = 1.0
    all_warehouses: bool = False
    keying_and_thinking: bool = False
    time_profile: bool = True
    total_iterations: int = 10_000_000


@dataclass(kw_only=True)
class TprochOptions(WorkloadOptions):
    scale_factor: int = 1
    query_sets: int = 1
    refresh: bool = False
    degree_of_parallel: int = 1


@dataclass(frozen=True)
class Target:
    """Where HammerDB builds and runs: the engine URL, mapped."""

    db: HdbDb
    host: str
    port: int
    user: str
    database: str  # where HammerDB builds its schema (new or empty)
    owner: str  # PostgreSQL: the role HammerDB creates to own the schema
    has_password: bool
    socket: str | None = None


def target_for(url: EngineURL, db: HdbDb, owner: str | None = None) -> Target:
    """Map an engine URL onto HammerDB's settings; bad URLs are one-line errors."""
    if url.database is None:
        raise DriversError(
            f"{url}: name the database HammerDB builds its schema in (…/DBNAME); "
            "it must be new or empty"
        )
    for what, value in (("database", url.database), ("owner", owner or url.database)):
        if not _NAME.match(value):
            raise DriversError(
                f"HammerDB {what} name {value!r} must be a plain SQL identifier "
                "(letters, digits, underscore)"
            )
    default_user = "postgres" if db == "pg" else "root"
    default_port = 5432 if db == "pg" else 3306
    unknown = set(url.query) - {"sslmode", "unix_socket", "socket"}
    if unknown:
        raise DriversError(f"engine URL options {sorted(unknown)} are not understood for HammerDB")
    return Target(
        db=db,
        host=url.host or "127.0.0.1",
        port=url.port or default_port,
        user=url.username or default_user,
        database=url.database,
        owner=owner or url.database,
        has_password=url.password is not None and url.password != "",
        socket=url.query.get("unix_socket") or url.query.get("socket"),
    )


def _q(value: object) -> str:
    """A Tcl word: braces keep the text literal."""
    text = "true" if value is True else "false" if value is False else str(value)
    if re.fullmatch(r"[A-Za-z0-9_.:/-]+", text):
        return text
    if "{" in text or "}" in text or "\\" in text:
        raise DriversError(f"value {text!r} cannot be passed to HammerDB")
    return "{" + text + "}"


def _pw(env: str) -> str:
    return f"$::env({env})"


def _connection(t: Target) -> list[str]:
    if t.db == "pg":
        return [
            f"diset connection pg_host {_q(t.host)}",
            f"diset connection pg_port {t.port}",
            "diset connection pg_sslmode disable",
        ]
    prefix = "maria" if t.db == "maria" else "mysql"
    return [
        f"diset connection {prefix}_host {_q(t.host)}",
        f"diset connection {prefix}_port {t.port}",
        f"diset connection {prefix}_socket {_q(t.socket or 'null')}",
    ]


def _credentials(t: Target, workload: Workload, *, build: bool) -> list[str]:
    """Who connects. PostgreSQL builds as the URL's user (a superuser or a role allowed to
    create roles) and creates ``owner``; runs connect as the URL's user (granted ``owner``)."""
    d = "tpcc" if workload == "tprocc" else "tpch"
    h = "" if workload == "tprocc" else "tpch_"
    if t.db == "pg":
        lines = [
            f"diset {d} pg_{h}superuser {_q(t.user)}",
            f"diset {d} pg_{h}superuserpass {_pw(PASSWORD_ENV)}",
            f"diset {d} pg_{h}defaultdbase postgres",
            f"diset {d} pg_{h}dbase {_q(t.database)}",
        ]
        if build:
            lines += [
                f"diset {d} pg_{h}user {_q(t.owner)}",
                f"diset {d} pg_{h}pass {_pw(OWNER_PASSWORD_ENV)}",
            ]
        else:
            lines += [
                f"diset {d} pg_{h}user {_q(t.user)}",
                f"diset {d} pg_{h}pass {_pw(PASSWORD_ENV)}",
            ]
        return lines
    p = t.db
    return [
        f"diset {d} {p}_{h}user {_q(t.user)}",
        f"diset {d} {p}_{h}pass {_pw(PASSWORD_ENV)}",
        f"diset {d} {p}_{h}dbase {_q(t.database)}",
    ]


def _head(t: Target, workload: Workload, *, build: bool) -> list[str]:
    return [
        "# written by dbbench: HammerDB's settings persist in $TMP, so every one is set here",
        f"dbset db {t.db}",
        f"dbset bm {BENCHMARK[workload]}",
        *_connection(t),
        *_credentials(t, workload, build=build),
    ]


def _diset(dictionary: str, db: HdbDb, values: dict[str, object]) -> list[str]:
    """``diset`` lines of one dictionary (tpcc, tpch) for keys prefixed with the database."""
    return [f"diset {dictionary} {db}_{key} {value}" for key, value in values.items()]


def build_script(t: Target, workload: Workload, opts: TproccOptions | TprochOptions) -> str:
    lines = _head(t, workload, build=True)
    p = t.db
    if isinstance(opts, TproccOptions):
        lines += _diset("tpcc", p, {"count_ware": opts.warehouses, "num_vu": opts.build_workers})
        if p == "pg":
            lines += _diset("tpcc", p, {"storedprocs": "false", "partition": "false"})
        else:
            lines += _diset("tpcc", p, {"storage_engine": "innodb"})
    else:
        lines += _diset(
            "tpch", p, {"scale_fact": opts.scale_factor, "num_tpch_threads": opts.build_workers}
        )
        if p != "pg":
            lines += _diset("tpch", p, {"tpch_storage_engine": "innodb"})
    lines += ["set dbbench_result [buildschema]", f'puts "{JOB_MARKER} $dbbench_result"']
    return "\n".join(lines) + "\n"


_WAIT = """\
# wait for the virtual users (HammerDB's own keepalive needs whole minutes); the first
# poll runs inside vwait, so a run that is already complete ends it too
set ::dbbench_done 0
proc dbbench_poll {} { if {[vucomplete]} { set ::dbbench_done 1 } else { after 1000 dbbench_poll } }
after idle dbbench_poll
vwait ::dbbench_done"""


def run_script(t: Target, workload: Workload, opts: TproccOptions | TprochOptions) -> str:
    lines = _head(t, workload, build=False)
    p = t.db
    if isinstance(opts, TproccOptions):
        tpcc: dict[str, object] = {
            "driver": "timed",
            "total_iterations": opts.total_iterations,
            "rampup": _minutes(opts.rampup_minutes),
            "duration": _minutes(opts.duration_minutes),
            "allwarehouse": _q(opts.all_warehouses),
            "keyandthink": _q(opts.keying_and_thinking),
            "timeprofile": _q(opts.time_profile),
        }
        if p == "pg":
            tpcc["vacuum"] = "false"
        lines += _diset("tpcc", p, tpcc)
        counter = True
    else:
        tpch: dict[str, object] = {
            "scale_fact": opts.scale_factor,
            "total_querysets": opts.query_sets,
            "refresh_on": _q(opts.refresh),
            "verbose": "false",
        }
        if p == "pg":
            tpch["degree_of_parallel"] = opts.degree_of_parallel
        lines += _diset("tpch", p, tpch)
        counter = False
    lines += ["loadscript", f"vuset vu {opts.virtual_users}", "vuset logtotemp 1", "vucreate"]
    if counter:
        lines.append("tcstart")
    lines += ["set dbbench_result [vurun]", _WAIT, "vudestroy"]
    if counter:
        lines.append("tcstop")
    lines.append(f'puts "{JOB_MARKER} $dbbench_result"')
    return "\n".join(lines) + "\n"


def _minutes(value: float) -> str:
    """HammerDB's timed driver checks the clock every 6 s: durations in tenths of a minute."""
    tenths = round(value * 10)
    if tenths < 0 or abs(tenths - value * 10) > 1e-9:
        raise DriversError(f"{value} minutes: use a multiple of 0.1 minute (HammerDB's 6 s tick)")
    return str(tenths // 10) if tenths % 10 == 0 else f"{tenths / 10:.1f}"
