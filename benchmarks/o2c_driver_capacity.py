"""How many simulated users one core drives: 10,000 users at 10 s think time, measured.

The o2c driver (asyncio users, the work-process pool, recording) is pinned to one CPU
(``os.sched_setaffinity``); the database is a real server on this host. Offered load is
``users / (think + RT)`` dialog steps per second (1,000/s for 10,000 users at 10 s).
Printed, from the steady window of one probe:

* achieved dialog steps/s against offered, and the average response time (wait for a work
  process + database): when the database cannot keep up, steps queue for work processes and
  the response time grows; that is the database's limit, not the driver's;
* the driver's own lag, from a step's due time to its user task running (p50/p99/max): near
  zero while the driver keeps up, growing when it is the bottleneck;
* the driver process's CPU: seconds per dialog step and % of its one core.

The driver keeps up when its lag stays small (p99 well under the think time's granularity,
here 0.1 s) and its core is not saturated; then ``1 / (CPU per step)`` is the step rate one
core drives, measured at this user count rather than extrapolated from a small one.

Run: ``python benchmarks/o2c_driver_capacity.py --engine postgresql://user@127.0.0.1/tpch
[--users 10000] [--think 10] [--steady 30] [--work-processes 8]``; the database must be a
loaded TPC-H database of SF ≥ 0.3 (10,000 users need 10,000 customers and 50,000 parts);
it is prepared for that many users if it is not.
"""

from __future__ import annotations

import argparse
import os
import platform

from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact
from dbbench.reports.o2c.metrics import summarize


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--think", type=float, default=10.0)
    ap.add_argument("--rampup", type=float, default=None)
    ap.add_argument("--steady", type=float, default=30.0)
    ap.add_argument("--work-processes", type=int, default=None)
    ap.add_argument("--cpu", type=int, default=0, help="the one CPU the driver runs on")
    args = ap.parse_args()

    os.sched_setaffinity(0, {args.cpu})
    engine = open_engine(args.engine)
    try:
        prepared = setup.read_prepared(engine)
        if prepared is None or prepared.users < args.users:
            if prepared is not None:
                setup.cleanup(engine)
            prepared = setup.prepare(engine, seed=1, users=args.users)
        cfg = RunConfig(
            users=args.users, think=args.think, rampup=args.rampup, steady=args.steady,
            work_processes=args.work_processes, progress_interval=10.0,
        )  # fmt: skip
        probe = Simulator(engine, prepared, cfg, url=args.engine).run()
    finally:
        engine.close()
    s = summarize(probe, 1.0)
    window = probe.window_end - probe.window_start
    offered = probe.users / (probe.think + (s.avg_rt if s.avg_rt == s.avg_rt else 0.0))
    achieved = s.steps_per_hour / 3600.0
    cpu = probe.driver_cpu_seconds or 0.0
    print(f"engine: {redact(args.engine)}; host: {platform.node()}, {os.cpu_count()} CPUs; "
          f"driver pinned to CPU {args.cpu}")  # fmt: skip
    wp = probe.work_processes
    print(f"users {probe.users:,}, think {probe.think:g} s, work processes {wp}, "
          f"steady window {window:.0f} s, status {probe.status}")  # fmt: skip
    print(f"offered (users / (think + RT)): {offered:,.1f} dialog steps/s; at zero RT: "
          f"{probe.users / probe.think:,.1f}")  # fmt: skip
    print(f"achieved: {achieved:,.1f} dialog steps/s, average RT {s.avg_rt:.3f} s "
          f"(wait {s.avg_wait:.3f} s + database {s.avg_db:.3f} s), errors {s.errors}")  # fmt: skip
    print(f"driver lag p50/p99/max: {probe.driver_lag_p50 or 0:.4f} / "
          f"{probe.driver_lag_p99 or 0:.4f} / {probe.driver_lag_max or 0:.4f} s")  # fmt: skip
    per_step = cpu / s.steps if s.steps else float("nan")
    rate = 1 / per_step if per_step else float("nan")
    print(f"driver CPU: {cpu:.2f} s in the window = {100 * cpu / window:.1f} % of its core, "
          f"{per_step * 1000:.3f} ms per dialog step -> one core drives about "
          f"{rate:,.0f} steps/s at this user count")  # fmt: skip
    if s.server_cpu_busy is not None:
        print(f"database server CPU: {100 * s.server_cpu_busy:.0f} % of all host CPUs; "
              f"host busy {100 * (s.host_cpu_busy or 0):.0f} %")  # fmt: skip


if __name__ == "__main__":
    main()
