"""Shared fixtures: the real database servers and small generated data.

PostgreSQL (127.0.0.1:5432) and MariaDB (127.0.0.1:3306) are used for real. On a machine
without them the tests that need them are skipped with a reason, unless
``DBBENCH_REQUIRE_SERVERS=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

from __future__ import annotations

import os
import resource
import socket
from collections.abc import Iterator

import pytest
from sf1_database import duckdb_sf1_path  # noqa: F401  (a fixture for every test package)

# Every Spark JVM the tests start (the engine's own, the servers of tests/spark_servers.py)
# binds to loopback only.
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
# ... and compiles with the JVM's quick compiler only: a test's JVM (Spark's driver and
# executors, a Connect server, a standalone master) lives for seconds to minutes over SF 0.01
# data, where C2's compilations are CPU spent and never repaid — measured on a SF 0.01 load
# and the 22 queries on local-cluster[2,1,1024]: 161-169 s of CPU with C2, 74 s without.
# The java launcher reads JDK_JAVA_OPTIONS (jstat, which the telemetry runs, does not); what
# a JVM prints about it goes to the logs the tests keep, not to a terminal a test reads.
os.environ.setdefault("JDK_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1")

PG_HOST, PG_PORT = "127.0.0.1", 5432
MARIADB_HOST, MARIADB_PORT = "127.0.0.1", 3306


def _require_servers() -> bool:
    return os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def _server_or_skip(name: str, host: str, port: int) -> None:
    if _reachable(host, port):
        return
    message = f"{name} is not reachable on {host}:{port}"
    if _require_servers():
        pytest.fail(f"{message} and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
    pytest.skip(message)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadfile`` in units of a file or an engine, longest first
    (``xdist_schedule.py``)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist_schedule import make_scheduler

    return make_scheduler(config, log)


def _cpu_seconds() -> float:
    """User + system CPU of this process and of the children it reaped (servers and CLIs a
    test started and waited for; not the shared servers' own processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


#: the shared servers' processes, whose CPU ``DBBENCH_TEST_SERVER_CPU=1`` also records
_SERVERS = ("postgres", "mariadbd", "mysqld")


def _server_cpu_seconds() -> float | None:
    """User + system CPU of the shared servers' processes and of the ones they reaped (ended
    PostgreSQL backends), when ``DBBENCH_TEST_SERVER_CPU=1``: about 10 ms a reading, so not
    by default; meaningful with ``-n 0`` on a quiet machine (every client of the servers
    counts: with workers, the other workers' queries too)."""
    if os.environ.get("DBBENCH_TEST_SERVER_CPU", "") in ("", "0", "false", "no"):
        return None
    import psutil

    total = 0.0
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") in _SERVERS:
            try:
                t = proc.cpu_times()
            except psutil.Error:
                continue
            total += t.user + t.system + t.children_user + t.children_system
    return total


_CPU_AT_SETUP = pytest.StashKey[tuple[float, float | None]]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_CPU_AT_SETUP] = (_cpu_seconds(), _server_cpu_seconds())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Each test's CPU seconds (setup, call and teardown) as the JUnit property
    ``cpu_seconds``: on a busy 2-core machine a test's wall seconds measure the other tests
    it shared the CPUs with as much as itself; `tests/xdist_schedule.py --cpu` sums them.
    With ``DBBENCH_TEST_SERVER_CPU=1`` the shared servers' CPU is ``server_cpu_seconds``."""
    if call.when == "teardown" and _CPU_AT_SETUP in item.stash:
        own, server = item.stash[_CPU_AT_SETUP]
        item.user_properties.append(("cpu_seconds", f"{_cpu_seconds() - own:.3f}"))
        now = _server_cpu_seconds()
        if server is not None and now is not None:
            item.user_properties.append(("server_cpu_seconds", f"{now - server:.3f}"))
    yield


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    """URL of the PostgreSQL server's ``test`` database (trust auth)."""
    _server_or_skip("PostgreSQL", PG_HOST, PG_PORT)
    return f"postgresql://postgres@{PG_HOST}:{PG_PORT}/test"


@pytest.fixture(scope="session")
def mariadb_base_url() -> str:
    """SQLAlchemy URL of the MariaDB server (root, empty password), database ``test``."""
    _server_or_skip("MariaDB", MARIADB_HOST, MARIADB_PORT)
    return f"mysql+pymysql://root@{MARIADB_HOST}:{MARIADB_PORT}/test"


@pytest.fixture()
def tmp_cwd(tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    yield tmp_path


def _nightly() -> bool:
    return os.environ.get("DBBENCH_NIGHTLY", "") not in ("", "0", "false", "no")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The one place the ``nightly`` marker is honoured: such a test (an SF 1 or SF 10 build,
    Spark's JVM clusters) runs only with DBBENCH_NIGHTLY=1, and is otherwise skipped with a
    reason the end-of-run summary groups."""
    if _nightly():
        return
    skip = pytest.mark.skip(reason="nightly (minutes of CPU): set DBBENCH_NIGHTLY=1")
    for item in items:
        if item.get_closest_marker("nightly") is not None:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """At the end of every run, which groups of tests were skipped and why (one line a
    reason), so that a quiet skip of a whole group — servers, HammerDB, Chromium, Spark —
    is seen, not found later."""
    skipped = terminalreporter.stats.get("skipped", [])
    groups: dict[str, list[str]] = {}
    for report in skipped:
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else "skipped"
        reason = str(reason).removeprefix("Skipped: ")
        folder = str(getattr(report, "nodeid", "")).split("::", 1)[0].rsplit("/", 1)[0]
        groups.setdefault(reason, []).append(folder)
    if not groups:
        terminalreporter.write_line("skipped test groups: none")
        return
    terminalreporter.section("skipped test groups")
    for reason, folders in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        where = ", ".join(sorted(set(folders)))
        terminalreporter.write_line(f"{len(folders):4d} skipped ({where}): {reason}")
