"""o2c driver capacity: 1, 2 and 4 driver processes beside pgbench -S and HammerDB TPROC-C.

One run of the script measures, through the same PostgreSQL server and the same number of
connections ``W`` (o2c's work processes, pgbench's clients, HammerDB's virtual users):

* **o2c** with ``--driver-processes`` 1, 2 and 4 (``drivers.o2c.processes``): ``--users``
  users at ``--think`` seconds, the steady window's dialog steps/s, average RT, and the
  driver's CPU (user + system of every driver process, in the window: ``process_time``) per
  dialog step, with each process's share of a core;
* **pgbench -S** (one primary-key SELECT a transaction) on a scratch database
  (``pgbench -i -s 10``): TPS, and pgbench's own CPU (``getrusage`` of the children) per
  transaction;
* **HammerDB TPROC-C** (``dbbench hammerdb run tprocc``: the kit's HammerDB driver, 1
  warehouse, built first, not timed) on a scratch database: NOPM, TPM and transactions/s
  (TPM / 60), and HammerDB's CPU (its processes, start-up included) per transaction.

Then the ratios: each o2c rate over the one-process rate, over pgbench's TPS and over
HammerDB's transactions/s; driver CPU per unit of work side by side. The load average is
printed at the start and the end (a busy machine is part of the figure).

The scratch databases (``dbbench_cap_<hex>_{tpch,pgb,hdb}``) are created on ``--server``
and dropped at the end; the TPC-H one is loaded at ``--sf`` (default 0.01: 400 users at
most) and prepared for ``--users``. ``--engine URL`` uses a loaded TPC-H database instead
(prepared for ``--users`` if it is not; then left prepared).

Run: ``python benchmarks/o2c_driver_capacity.py [--server postgresql://postgres@127.0.0.1:5432/postgres]
[--users 200] [--think 0.05] [--steady 20] [--work-processes 8] [--hammerdb-minutes 0.5]
[--no-hammerdb]``; ``pgbench`` on the PATH or in ``/usr/lib/postgresql/*/bin``; HammerDB
from ``$DBBENCH_HAMMERDB`` (with ``TCLLIBPATH`` for its adapters, see ``dbbench hammerdb
check``).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from dbbench.drivers.loader import load_database
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.o2c.study import drive
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact
from dbbench.reports.o2c.metrics import summarize

PROCESSES = (1, 2, 4)


def _sibling(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name, query=""))


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _pgbench() -> str:
    found = shutil.which("pgbench") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"), reverse=True)), None
    )
    if found is None:
        raise SystemExit("pgbench is neither on the PATH nor in /usr/lib/postgresql/*/bin")
    return found


def pgbench(url: str, clients: int, seconds: float) -> tuple[float, float]:
    """``pgbench -S``: (TPS, pgbench's CPU seconds per transaction)."""
    cpu0 = _children_cpu()
    out = subprocess.run(
        [_pgbench(), "-S", "-n", "-c", str(clients), "-j", "2", "-T", str(int(seconds)), url],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    cpu = _children_cpu() - cpu0
    tps = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    done = re.search(r"number of transactions actually processed: (\d+)", out)
    if tps is None or done is None:
        raise SystemExit(f"no tps in pgbench output:\n{out}")
    return float(tps.group(1)), cpu / max(int(done.group(1)), 1)


def hammerdb(url: str, vus: int, minutes: float, folder: Path) -> tuple[float, float, float]:
    """HammerDB TPROC-C through ``dbbench hammerdb run``: (NOPM, TPM, HammerDB's CPU
    seconds per transaction); the schema is built first, outside the measurement."""
    base = [sys.executable, "-m", "dbbench", "hammerdb", "run", "tprocc", "-e", url, "-q",
            "-w", "1", "-u", str(vus)]  # fmt: skip
    build = subprocess.run(
        [*base, "--build-only", "--build-vus", "1", "-o", str(folder / "build")],
        capture_output=True, text=True,
    )  # fmt: skip
    if build.returncode != 0:
        raise RuntimeError(f"HammerDB build failed: {build.stderr.strip()[-500:]}")
    cpu0 = _children_cpu()
    run = subprocess.run(
        [*base, "--duration", f"{minutes:g}", "-o", str(folder / "run")],
        capture_output=True, text=True,
    )  # fmt: skip
    cpu = _children_cpu() - cpu0
    if run.returncode != 0:
        raise RuntimeError(f"HammerDB run failed: {run.stderr.strip()[-500:]}")
    result = json.loads((folder / "run" / "result.json").read_text())
    nopm, tpm = float(result["nopm"]), float(result["tpm"])
    return nopm, tpm, cpu / max(tpm * minutes, 1.0)


def o2c(url: str, users: int, think: float, steady: float, w: int, n: int) -> dict[str, float]:
    """One o2c probe with ``n`` driver processes: steps/s, RT, driver CPU per step and the
    busiest process's share of a core."""
    engine = open_engine(url)
    try:
        prepared = setup.require_prepared(engine)
        cfg = RunConfig(
            users=users, think=think, rampup=2.0, steady=steady, work_processes=w,
            driver_processes=n, progress_interval=3600.0,
        )  # fmt: skip
        probe = drive(Simulator(engine, prepared, cfg, url=url), [url], None)
    finally:
        engine.close()
    s = summarize(probe, 1.0)
    window = probe.window_end - probe.window_start
    each = probe.driver_cpu_by_process or [probe.driver_cpu_seconds or 0.0]
    return {
        "steps_s": s.steps_per_hour / 3600.0,
        "rt": s.avg_rt,
        "cpu_step": sum(each) / s.steps if s.steps else float("nan"),
        "busiest": max(each) / window if window else float("nan"),
        "errors": float(s.errors),
        "lag_p99": probe.driver_lag_p99 or 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--engine", help="a loaded TPC-H database (else a scratch one at --sf)")
    ap.add_argument("--sf", type=float, default=0.01)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--think", type=float, default=0.05)
    ap.add_argument("--steady", type=float, default=20.0)
    ap.add_argument("--work-processes", type=int, default=8)
    ap.add_argument("--hammerdb-minutes", type=float, default=0.5)
    ap.add_argument("--no-hammerdb", action="store_true")
    args = ap.parse_args()
    w = args.work_processes
    tag = f"dbbench_cap_{secrets.token_hex(4)}"
    made: list[str] = []
    load0 = os.getloadavg()

    def scratch(suffix: str) -> str:
        name = f"{tag}_{suffix}"
        with psycopg.connect(args.server, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
        made.append(name)
        return _sibling(args.server, name)

    try:
        url = args.engine or scratch("tpch")
        engine = open_engine(url)
        try:
            if args.engine is None:
                load_database(engine, args.sf, jobs=1)
            prepared = setup.read_prepared(engine)
            if prepared is None or prepared.users < args.users:
                if prepared is not None:
                    setup.cleanup(engine)
                setup.prepare(engine, seed=1, users=args.users)
            version = engine.version()
        finally:
            engine.close()
        pgb = scratch("pgb")
        subprocess.run([_pgbench(), "-i", "-q", "-s", "10", pgb], check=True, capture_output=True)
        print(f"{version}; {os.cpu_count()} CPUs; {w} connections each; {redact(url)}")
        print(f"load average at the start: {' / '.join(f'{v:.1f}' for v in load0)}", flush=True)
        runs: dict[int, dict[str, float]] = {}
        for n in PROCESSES:
            runs[n] = r = o2c(url, args.users, args.think, args.steady, w, n)
            print(
                f"o2c, {n} driver process{'es' if n > 1 else ''}: {r['steps_s']:,.0f} dialog "
                f"steps/s, avg RT {r['rt']:.3f} s, driver CPU {r['cpu_step'] * 1e3:.3f} ms/step, "
                f"busiest process {100 * r['busiest']:.0f} % of a core, lag p99 "
                f"{r['lag_p99']:.3f} s, errors {r['errors']:.0f}",
                flush=True,
            )
        tps, pgb_cpu = pgbench(pgb, w, args.steady)
        print(
            f"pgbench -S -c {w}: {tps:,.0f} TPS, pgbench CPU {pgb_cpu * 1e3:.4f} ms/tx", flush=True
        )
        hdb: tuple[float, float, float] | None = None
        if not args.no_hammerdb:
            with tempfile.TemporaryDirectory(prefix="dbbench-cap-hdb-") as folder:
                try:
                    hdb = hammerdb(scratch("hdb"), w, args.hammerdb_minutes, Path(folder))
                except RuntimeError as exc:
                    print(f"HammerDB TPROC-C: not measured ({exc})")
        if hdb is not None:
            print(
                f"HammerDB TPROC-C, 1 warehouse, {w} VUs, {args.hammerdb_minutes:g} min: "
                f"{hdb[0]:,.0f} NOPM, {hdb[1]:,.0f} TPM = {hdb[1] / 60:,.0f} tx/s, HammerDB "
                f"CPU {hdb[2] * 1e3:.3f} ms/tx (start-up included)"
            )
        print("ratios:")
        one = runs[1]["steps_s"]
        for n, r in runs.items():
            rate = r["steps_s"]
            line = f"  o2c x{n}: / o2c x1 {rate / one:.2f}, / pgbench TPS {rate / tps:.4f}"
            if hdb is not None:
                line += f", / HammerDB tx/s {r['steps_s'] / (hdb[1] / 60):.3f}"
            line += f"; driver CPU per step / pgbench's per tx {r['cpu_step'] / pgb_cpu:.1f}"
            if hdb is not None:
                line += f", / HammerDB's per tx {r['cpu_step'] / hdb[2]:.2f}"
            print(line)
        load1 = os.getloadavg()
        print(f"load average at the end: {' / '.join(f'{v:.1f}' for v in load1)}")
    finally:
        if made:
            with psycopg.connect(args.server, autocommit=True) as conn:
                for name in made:
                    conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
