"""What the resource sampler costs a run: the same benchmark with and without telemetry.

A DuckDB database is loaded once at ``--sf``; then power + throughput runs alternate with
the sampler on (``--interval``, 1 s by default) and off, ``--repeat`` times each. Printed:
the best and the median wall time of each side, their ratio (target <= 1.01), and the CPU
time the sampler itself recorded as a share of the run.

Run: ``python benchmarks/telemetry_overhead.py [--sf 0.1] [--repeat 5] [--interval 1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import Benchmark, RunOptions


def one_run(url: str, sf: float, interval: float | None, out: Path) -> tuple[float, float]:
    """(wall seconds of a power + throughput run, sampler CPU seconds)."""
    db = open_engine(url)
    try:
        options = RunOptions(sf=sf, streams=2, runs=1, seed=1, telemetry_interval=interval)
        bench = Benchmark(db, url, options, out)

        def steps(b: Benchmark) -> None:
            b.require_loaded()
            b.performance_run(1)

        start = time.perf_counter()
        result = bench.execute(steps)
        wall = time.perf_counter() - start
    finally:
        db.close()
    return wall, result.telemetry.overhead_seconds if result.telemetry else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dbbench-telemetry-") as tmp:
        root = Path(tmp)
        url = f"duckdb:///{root / 'tpch.duckdb'}"
        db = open_engine(url)
        try:
            loader = Benchmark(db, url, RunOptions(sf=args.sf, streams=1, runs=1), root / "load")
            loader.execute(lambda b: b.load())
        finally:
            db.close()
        times: dict[str, list[float]] = {"on": [], "off": []}
        overhead: list[float] = []
        for i in range(args.repeat):
            for side, interval in (("on", args.interval), ("off", None)):
                wall, cpu = one_run(url, args.sf, interval, root / f"{side}-{i}")
                times[side].append(wall)
                if side == "on":
                    overhead.append(cpu / wall)
    print(f"SF {args.sf:g}, {os.cpu_count()} CPUs, power + throughput (S=2), {args.repeat} each")
    for side, values in times.items():
        print(
            f"  telemetry {side:3}: best {min(values):.3f} s, median "
            f"{statistics.median(values):.3f} s"
        )
    best = min(times["on"]) / min(times["off"])
    median = statistics.median(times["on"]) / statistics.median(times["off"])
    print(f"  on / off = {best:.3f} (best), {median:.3f} (median); target <= 1.01")
    print(f"  sampler CPU time: {100 * statistics.median(overhead):.2f} % of the run's wall time")


if __name__ == "__main__":
    main()
