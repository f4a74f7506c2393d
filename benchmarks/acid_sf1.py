"""``dbbench acid`` at SF 1, the qualification database: DuckDB (a file; durability by
SIGKILL of the process the engine is embedded in) and a private PostgreSQL (started here
under a temp dir on a free loopback port, durability by ``kill -KILL`` of its process group
and ``pg_ctl start``; never the shared server). Prints each test's verdict and time, the
load time and the whole.

    python benchmarks/acid_sf1.py [--sf 1] [--engines duckdb,postgresql] [--transactions 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _private_servers import free_port

from dbbench.drivers.acid.workload import run_acid
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.reports.acid.model import AcidResult


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _timed_load(url: str, sf: float) -> float:
    engine = open_engine(url)
    try:
        start = time.perf_counter()
        load_database(engine, sf)
        return time.perf_counter() - start
    finally:
        engine.close()


def _show(name: str, load: float, whole: float, result: AcidResult) -> None:
    print(f"\n{name}: load {load:.1f} s, acid {whole:.1f} s: {result.summary()}")
    for check in result.checks:
        print(f"  {check.name:<20} {check.verdict:<8} {check.seconds:8.2f} s  {check.message}")


def duckdb(sf: float, per_stream: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-acid-bench-"))
    try:
        url = f"duckdb:///{tmp / 'q.duckdb'}"
        load = _timed_load(url, sf)
        start = time.perf_counter()
        result = run_acid(url, sf, tmp / "run", per_stream=per_stream)
        _show("DuckDB", load, time.perf_counter() - start, result)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def postgresql(sf: float, per_stream: int) -> None:
    pg_ctl = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1]
    tmp = Path(tempfile.mkdtemp(prefix="dbbench-acid-pg-"))
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    data, port = tmp / "data", free_port()
    initdb = [str(pg_ctl.with_name("initdb")), "-D", str(data), "-A", "trust", "-U", "postgres"]
    subprocess.run(_as_postgres(initdb), check=True, capture_output=True, cwd=tmp)
    options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={tmp}"
    start_cmd = _as_postgres(
        [str(pg_ctl), "-D", str(data), "-w", "-l", str(tmp / "log"), "-o", options, "start"]
    )
    try:
        subprocess.run(start_cmd, check=True, capture_output=True, cwd=tmp)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        load = _timed_load(url, sf)
        pid = int((data / "postmaster.pid").read_text().split()[0])
        # a killed postmaster without an init to reap it stays a zombie that PostgreSQL's
        # stale-lock check takes for a running server: the lock files go first
        locks = shlex.join([str(data / "postmaster.pid"), str(tmp / f".s.PGSQL.{port}.lock")])
        restart = ["sh", "-c", f"rm -f {locks} && exec {shlex.join(start_cmd)}"]
        start = time.perf_counter()
        result = run_acid(
            url, sf, tmp / "run", per_stream=per_stream,
            kill=shlex.join(["kill", "-KILL", "--", f"-{pid}"]), restart=shlex.join(restart),
        )  # fmt: skip
        _show("PostgreSQL (private server)", load, time.perf_counter() - start, result)
    finally:
        stop = _as_postgres([str(pg_ctl), "-D", str(data), "-m", "immediate", "stop"])
        subprocess.run(stop, capture_output=True, check=False, cwd=tmp)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--engines", default="duckdb,postgresql")
    parser.add_argument("--transactions", type=int, default=100)
    args = parser.parse_args()
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    runs = {"duckdb": duckdb, "postgresql": postgresql}
    for name in args.engines.split(","):
        runs[name](args.sf, args.transactions)


if __name__ == "__main__":
    main()
