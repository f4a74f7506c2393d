"""The o2c driver's own CPU per dialog step, against the bare dialog steps on one connection.

Two ways of executing the same dialog steps (same SQL, same business logic) on the same
prepared database, alternating, best of N:

* bare: one user's loops back to back on one connection (``Simulator.run_loops``): the
  client-side cost of the steps themselves (SQL text, the driver library, fetching);
* simulator: ``--users`` asyncio users with ``--think`` seconds of think time over the
  work-process pool (threads), every step recorded: the whole driver.

Both are measured as this process's CPU time per dialog step (``time.process_time``), so
the database server's work is excluded when the engine is a server. The difference is what
the simulation adds per step (asyncio, the pool, the thread hand-off, recording); the issue's
target is under 0.2 ms. With an embedded engine (DuckDB) both include the engine's CPU.

Run: ``python benchmarks/o2c_driver_overhead.py --engine postgresql://... [--users 200]
[--think 0.2] [--steady 10] [--repeat 3]``; the database must be loaded (``dbbench load``).
It is prepared for o2c if it is not, and cleaned up afterwards only if this script
prepared it.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import RunConfig, Simulator
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import redact


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--think", type=float, default=0.2)
    ap.add_argument("--steady", type=float, default=10.0)
    ap.add_argument("--loops", type=int, default=20, help="bare loops per repetition")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    engine = open_engine(args.engine)
    prepared = setup.read_prepared(engine)
    ours = prepared is None
    if prepared is None:
        prepared = setup.prepare(engine, seed=1, users=args.users)
    print(
        f"engine {redact(args.engine)} ({engine.version()}), {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {platform.platform()}"
    )
    bare: list[float] = []
    sim: list[float] = []
    rts: list[float] = []
    try:
        for _ in range(args.repeat):
            cpu = time.process_time()
            Simulator(engine, prepared, RunConfig(users=1)).run_loops(0, args.loops)
            bare.append((time.process_time() - cpu) * 1000 / (args.loops * 15 + 1))

            cfg = RunConfig(
                users=args.users,
                think=args.think,
                rampup=1.0,
                steady=args.steady,
                progress_interval=3600,
            )
            probe = Simulator(engine, prepared, cfg).run()
            s = probe.steps
            done = sum(
                1
                for i in range(len(s.step))
                if s.ok[i]
                and probe.window_start <= s.due[i] + s.wait[i] + s.db[i] <= probe.window_end
            )
            assert probe.driver_cpu_seconds is not None and done
            sim.append(probe.driver_cpu_seconds * 1000 / done)
            rts.append(sum(s.wait[i] + s.db[i] for i in range(len(s.step))) / len(s.step))
    finally:
        if ours:
            setup.cleanup(engine)
        engine.close()
    b, m = min(bare), min(sim)
    print(
        f"bare steps, one connection:    {b:.3f} ms CPU/step (runs: "
        + ", ".join(f"{v:.3f}" for v in bare)
        + ")"
    )
    print(
        f"simulator, {args.users} users, think {args.think:g} s: {m:.3f} ms CPU/step (runs: "
        + ", ".join(f"{v:.3f}" for v in sim)
        + f"; avg RT {min(rts):.3f} s)"
    )
    print(
        f"the simulation adds {m - b:.3f} ms CPU per dialog step (target < 0.2 ms); "
        f"ratio {m / b:.2f}x; one core drives at most ~{1000 / m:,.0f} steps/s, "
        f"i.e. ~{10_000 / m:,.0f} users at 10 s think time"
    )


if __name__ == "__main__":
    main()
