"""o2c dialog steps per second next to pgbench's select-only TPS, on the same PostgreSQL.

pgbench ``-S`` (one primary-key SELECT per transaction) is the single-statement upper bound
of what the server and this machine do per second through the same number of connections;
an o2c dialog step is one to eight statements (reads, or a write transaction), through the
kit's Python driver and simulator. The ratio says how much of that bound o2c reaches.

The two alternate (pgbench, o2c, pgbench, o2c, ...), best of ``--repeat``:

* pgbench: ``pgbench -S -c W -j 2 -T SECONDS`` on a scratch database (``pgbench -i -s 10``),
  created next to the TPC-H database and dropped at the end;
* o2c: ``--users`` users with ``--think`` seconds over ``W`` work processes on the TPC-H
  database (prepared if it is not, cleaned up at the end if this script prepared it); the
  steady window's dialog steps per second and average response time.

Run: ``python benchmarks/o2c_vs_pgbench.py --engine postgresql://user@host/tpch
[--users 1000] [--think 1] [--work-processes 4] [--seconds 30] [--repeat 2]``; the TPC-H
database must be loaded (``dbbench load``) and ``pgbench`` on the PATH. With
``--at-search RESULT`` (an ``o2c search`` result on that database) o2c runs at the user
count the search found, i.e. at the response-time limit, with its think time and pool.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact
from dbbench.reports.o2c.metrics import summarize, summarize_result
from dbbench.reports.o2c.model import O2CResult


def _sibling(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name, query=""))


def pgbench_tps(url: str, clients: int, seconds: float) -> float:
    out = subprocess.run(
        ["pgbench", "-S", "-n", "-c", str(clients), "-j", "2", "-T", str(int(seconds)), url],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    if found is None:
        raise SystemExit(f"no tps in pgbench output:\n{out}")
    return float(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True, help="PostgreSQL URL of a loaded TPC-H database")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--think", type=float, default=1.0)
    ap.add_argument("--work-processes", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument(
        "--at-search",
        metavar="RESULT",
        help="an `o2c search` result: run o2c at the user count it found (the response-time "
        "limit), with its think time and work processes",
    )
    args = ap.parse_args()
    if args.at_search:
        found = summarize_result(O2CResult.read(Path(args.at_search)))
        if found.best is None:
            raise SystemExit(f"{args.at_search}: the search found no passing user count")
        args.users, args.think = found.best.users, found.best.think
        args.work_processes = found.best.work_processes
        print(
            f"at the search's result: {args.users:,} users, think {args.think:g} s, "
            f"{args.work_processes} work processes (avg RT there {found.best.avg_rt:.3f} s)"
        )
    if shutil.which("pgbench") is None:
        raise SystemExit("pgbench is not on the PATH")

    scratch = f"dbbench_pgbench_{secrets.token_hex(4)}"
    with psycopg.connect(args.engine, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {scratch}")  # type: ignore[arg-type]
    scratch_url = _sibling(args.engine, scratch)
    engine = open_engine(args.engine)
    prepared = setup.read_prepared(engine)
    ours = prepared is None
    try:
        subprocess.run(
            ["pgbench", "-i", "-q", "-s", "10", scratch_url], check=True, capture_output=True
        )
        if prepared is None:
            prepared = setup.prepare(engine, seed=1, users=args.users)
        print(
            f"{engine.version()} on {os.cpu_count()} CPUs; {args.work_processes} connections "
            f"each side; {redact(args.engine)}"
        )
        tps: list[float] = []
        steps: list[float] = []
        rts: list[float] = []
        for _ in range(args.repeat):
            tps.append(pgbench_tps(scratch_url, args.work_processes, args.seconds))
            cfg = RunConfig(
                users=args.users,
                think=args.think,
                steady=args.seconds,
                work_processes=args.work_processes,
                progress_interval=3600,
            )
            s = summarize(Simulator(engine, prepared, cfg).run(), rt_limit=1.0)
            steps.append(s.steps_per_hour / 3600)
            rts.append(s.avg_rt)
        best = max(range(args.repeat), key=lambda i: steps[i])
        print(
            f"pgbench -S (select-only, 1 statement/tx): {max(tps):,.0f} TPS "
            f"(runs: {', '.join(f'{v:,.0f}' for v in tps)})"
        )
        print(
            f"o2c, {args.users} users, think {args.think:g} s: {steps[best]:,.0f} dialog "
            f"steps/s at avg RT {rts[best]:.3f} s (runs: "
            + ", ".join(f"{v:,.0f} @ {r:.3f} s" for v, r in zip(steps, rts, strict=True))
            + ")"
        )
        print(f"ratio o2c dialog steps/s / pgbench TPS = {steps[best] / max(tps):.3f}")
    finally:
        if ours and prepared is not None:
            setup.cleanup(engine, force=True)
        engine.close()
        with psycopg.connect(args.engine, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {scratch} WITH (FORCE)")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
