"""The database server's own CPU during a probe's window, when it runs on this host.

``/proc/stat`` gives the whole host's CPU, which includes a local database server as well as
the driver. To tell them apart, the CPU time of the server's processes is read through
psutil at the start and the end of the window, counting only what serves the benchmark:

- where the engine can tell which server process serves a connection (its sessions'
  ``backend_pid()`` hook: PostgreSQL's ``pg_backend_pid()``; Hyper's ``hyperd``, the server
  the engine started as a child of the driver, which serves only its connections), only
  those processes — the backends of the run's own connections, not other tenants' nor the
  server's background writers;
- where it can tell which thread of the server's process serves a connection (the
  ``backend_thread()`` hook: MariaDB's ``PROCESSLIST.TID``, one thread per connection), only
  those threads of the ``facts.server_processes`` process — not the threads serving other
  clients' connections on the same server, nor InnoDB's background threads;
- otherwise the processes named by the engine's ``facts.server_processes`` (``mariadbd``,
  ``mysqld``) when they form the only server instance on the host; with more than one
  instance the figure is "host shared, not attributable" and not measured.

An embedded engine (DuckDB, SQLite) runs inside the driver's process, so the driver's CPU
includes it; a server on another host is not seen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

from dbbench.drivers.engine import BackendProcess, BackendThread, Engine, Session
from dbbench.drivers.telemetry import engine_scope

try:  # the telemetry extra; without it the figure is simply not measured
    import psutil
except ImportError:  # pragma: no cover - the test environment installs the extra
    psutil = None

NOT_SEEN = "not seen (embedded in the driver, on another host, or no psutil)"
SHARED = "host shared, not attributable"
THREADS = "the server threads serving the benchmark's own connections"


def _cpu_by_pid(names: tuple[str, ...], pids: Collection[int] | None) -> dict[int, float]:
    assert psutil is not None
    out: dict[int, float] = {}
    for proc in psutil.process_iter(["name", "cpu_times"]):
        info = proc.info
        wanted = proc.pid in pids if pids else info.get("name") in names
        if wanted and info.get("cpu_times") is not None:
            times = info["cpu_times"]
            out[proc.pid] = float(times.user + times.system)
    return out


def _cpu_by_thread(names: tuple[str, ...], tids: Collection[int]) -> dict[int, float]:
    """CPU seconds of the threads ``tids`` of the processes named ``names`` (those found)."""
    assert psutil is not None
    wanted = set(tids)
    out: dict[int, float] = {}
    for proc in psutil.process_iter(["name"]):
        if proc.info.get("name") not in names:
            continue
        try:
            threads = proc.threads()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for t in threads:
            if t.id in wanted:
                out[t.id] = float(t.user_time + t.system_time)
    return out


def instances(names: tuple[str, ...]) -> int:
    """Server instances of ``names`` on this host: their processes whose parent is not one."""
    if psutil is None:
        return 0
    procs = {
        p.pid: p.info.get("ppid") for p in psutil.process_iter(["name", "ppid"])
        if p.info.get("name") in names
    }  # fmt: skip
    return sum(1 for ppid in procs.values() if ppid not in procs)


def attribution(
    names: tuple[str, ...],
    url: str | None,
    pids: Collection[int] = (),
    tids: Collection[int] = (),
) -> str:
    """What the server CPU figure counts, as a result states it: the processes ``pids`` or
    the threads ``tids`` serving the run's connections where the engine tells them (threads
    only when this host's server process shows every one of them)."""
    if not names or url is None or psutil is None or engine_scope(url) != "host":
        return NOT_SEEN
    if pids:
        return "the server processes serving the benchmark's own connections"
    if tids and len(_cpu_by_thread(names, tids)) == len(set(tids)):
        return THREADS
    n = instances(names)
    if n == 1:
        return f"the only {'/'.join(names)} server instance on this host"
    return f"{SHARED} ({n} {'/'.join(names)} server instances on this host)"


def server_cpu_meter(
    names: tuple[str, ...],
    url: str | None,
    pids: Collection[int] = (),
    tids: Collection[int] = (),
) -> Callable[[], Callable[[], float]] | None:
    """``start()`` returns ``stop()``, which returns the CPU seconds of the server processes
    serving the run (``pids``; else its threads ``tids``; else the one instance of
    ``names``: an engine's ``facts.server_processes``) in between; None when they cannot be
    seen or told apart (:func:`attribution` says which)."""
    said = attribution(names, url, pids, tids)
    if said == NOT_SEEN or said.startswith(SHARED):
        return None
    threads = said == THREADS

    def read() -> dict[int, float]:
        return _cpu_by_thread(names, tids) if threads else _cpu_by_pid(names, pids)

    def start() -> Callable[[], float]:
        before = read()

        def stop() -> float:
            after = read()
            return sum(max(0.0, cpu - before.get(pid, 0.0)) for pid, cpu in after.items())

        return stop

    return start


def server_cpu_scope(engine: Engine, url: str | None) -> str:
    """What a run's server CPU figure on ``engine`` counts (:func:`servercpu.attribution`),
    read through one session of its own."""
    s = engine.session()
    try:
        pids, tids = backend_ids([s], BackendProcess), backend_ids([s], BackendThread)
        return attribution(engine.facts.server_processes, url, pids, tids)
    finally:
        s.close()


def backend_ids(
    sessions: list[Session], ability: type[BackendProcess] | type[BackendThread]
) -> set[int]:
    """What serves ``sessions`` on the server, where the engine can tell: the ids its
    sessions declare by the capability class ``ability`` (:class:`BackendProcess`:
    PostgreSQL's server processes; :class:`BackendThread`: MariaDB's OS threads); empty
    where a session lacks it or one id is unknown (the figure then falls back to the
    engine's server processes)."""
    found: set[int] = set()
    for s in sessions:
        got = None
        if ability is BackendProcess and isinstance(s, BackendProcess):
            got = s.backend_pid()
        elif ability is BackendThread and isinstance(s, BackendThread):
            got = s.backend_thread()
        if got is None:
            return set()
        found.add(int(got))
    return found


def host_jiffies(stat: Path = Path("/proc/stat")) -> tuple[int, int] | None:
    """(busy, total) CPU jiffies of the whole host, where Linux shows them."""
    try:
        fields = stat.read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    values = [int(v) for v in fields[:8]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def busy_share(a: tuple[int, int] | None, b: tuple[int, int] | None) -> float | None:
    if a is None or b is None or b[1] <= a[1]:
        return None
    return (b[0] - a[0]) / (b[1] - a[1])
