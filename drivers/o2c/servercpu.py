"""The database server's own CPU during a probe's window, when it runs on this host.

``/proc/stat`` gives the whole host's CPU, which includes a local database server as well as
the driver. To tell them apart, the CPU time of the server's processes (``postgres`` for
PostgreSQL, ``mariadbd``/``mysqld`` for MariaDB and MySQL) is read through psutil at the
start and the end of the window. All processes of that name on the host count (a second
server of the same kind would too). An embedded engine (DuckDB, SQLite) runs inside the
driver's process, so the driver's CPU includes it; a server on another host is not seen.
"""

from __future__ import annotations

from collections.abc import Callable

from dbbench.drivers.telemetry import engine_scope

try:  # the telemetry extra; without it the figure is simply not measured
    import psutil
except ImportError:  # pragma: no cover - the test environment installs the extra
    psutil = None

#: Process names of each server engine.
SERVER_PROCESSES: dict[str, tuple[str, ...]] = {
    "postgresql": ("postgres",),
    "mysql": ("mariadbd", "mysqld"),
}


def _cpu_by_pid(names: tuple[str, ...]) -> dict[int, float]:
    assert psutil is not None
    out: dict[int, float] = {}
    for proc in psutil.process_iter(["name", "cpu_times"]):
        info = proc.info
        if info.get("name") in names and info.get("cpu_times") is not None:
            times = info["cpu_times"]
            out[proc.pid] = float(times.user + times.system)
    return out


def server_cpu_meter(engine_name: str, url: str | None) -> Callable[[], Callable[[], float]] | None:
    """``start()`` returns ``stop()``, which returns the server processes' CPU seconds in
    between; None when they cannot be seen (embedded, remote, unknown, no psutil)."""
    names = SERVER_PROCESSES.get(engine_name)
    if names is None or url is None or psutil is None or engine_scope(url) != "host":
        return None

    def start() -> Callable[[], float]:
        before = _cpu_by_pid(names)

        def stop() -> float:
            after = _cpu_by_pid(names)
            return sum(max(0.0, cpu - before.get(pid, 0.0)) for pid, cpu in after.items())

        return stop

    return start
