"""What plan capture costs a run: the same benchmark with ``--plans off`` and ``explain``.

A database is loaded once at ``--sf`` (DuckDB in a temporary folder; ``--private-postgres``
for a PostgreSQL server of the benchmark's own; ``--url`` for a database of yours, loaded
if empty); then pairs of power + throughput runs, plans off and explain, the order
swapped from one pair to the next (off/on, on/off, ...), telemetry off. Each run is timed
as ``dbbench run`` spends it: the benchmark (its plan capture after the measured work)
and then the reports (with plans: each query's plan in the HTML report).

Printed per run: the wall time, the capture's own seconds (and CPU seconds against the
run's) and the reports' seconds, and the 1-minute load average. A loaded PostgreSQL
database of your own makes the load step a reuse (``--url``), as for the figures in
benchmarks/README.md. Then:

* what the capture adds to a run, measured directly: the capture's seconds plus the extra
  seconds the reports spend on the plans, as a share of the same pair's plans-off wall
  time (median and spread over the pairs; target < 2 %);
* the ratio of the two whole wall times per pair (median and spread), and the same ratio
  of the work before the capture (identical on both sides): on a busy machine both show
  the machine's noise, larger than the capture itself; they are printed so that a reader
  sees where the difference comes from;
* the capture's share of this process's CPU time: what it costs an in-process engine
  (DuckDB) whatever the machine's load (a server's own CPU is not in it);
* the least disturbed figures: the shortest capture (with its reports' extra) over the
  shortest plans-off run, best of each side as the other load benchmarks take them: on a
  busy machine the nearest to what an idle one would show.

The capture comes after the measured work, so the run's metrics never include it.

``--whole`` times what ``dbbench run`` (and ``make run``) does instead: each side loads a
database of its own (a new DuckDB file; a reload on a server), then ``--runs`` performance
runs (2, as the spec's run has) and the reports: the capture's share of a whole TPC-H run,
load test included. The default (no ``--whole``) is the stricter figure: the performance
runs alone, where an in-process engine's planning is the largest share.

Run: ``python benchmarks/plans_overhead.py [--sf 1] [--pairs 3] [--private-postgres]
[--whole [--runs 2]]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from _private_servers import private_postgres
from _sidebyside import Timings, alternate_pairs, median_and_spread

from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.reports.tpch.model import PlanMode
from dbbench.reports.tpch.render import write_reports

TARGET = 0.02  # the budget: < 2 % of a run's wall time


class TimedBenchmark(Benchmark):
    """A benchmark that also counts this process's CPU seconds spent on the capture, and
    notes when the capture began (the work before it is the same on both sides)."""

    capture_cpu = 0.0
    capture_began = 0.0

    def capture_plans(self) -> None:
        self.capture_began = time.perf_counter()
        start = time.process_time()
        super().capture_plans()
        self.capture_cpu = time.process_time() - start


def one_run(
    url: str, sf: float, streams: int, plans: PlanMode, out: Path, whole: int = 0
) -> Timings:
    """A power + throughput run and its reports (``whole``: a load test and that many
    performance runs, as ``dbbench run``): wall, capture and reports seconds, and this
    process's CPU seconds in all and in the capture."""
    db = open_engine(url)
    runs = whole or 1
    try:
        options = RunOptions(
            sf=sf, streams=streams, runs=runs, seed=1, telemetry_interval=None, plans=plans
        )
        bench = TimedBenchmark(db, url, options, out)

        def steps(b: Benchmark) -> None:
            if whole:
                b.load(reload=True)
            else:
                b.require_loaded()
            for number in range(1, runs + 1):
                b.performance_run(number)

        start, cpu = time.perf_counter(), time.process_time()
        result = bench.execute(steps)
        reports_start = time.perf_counter()
        write_reports(result, out)
        end, cpu = time.perf_counter(), time.process_time() - cpu
    finally:
        db.close()
    if result.errors:
        raise SystemExit(f"the {plans} run failed: {result.errors[0]}")
    expected = 22 * (streams + 1) * runs
    if plans != "off" and (result.plans is None or len(result.plans.records) != expected):
        raise SystemExit(f"the {plans} run did not capture every query's plan")
    capture = result.plans.seconds if result.plans else 0.0
    return {
        "total": end - start, "capture": capture, "reports": end - reports_start,
        "cpu": cpu, "capture_cpu": bench.capture_cpu, "before": bench.capture_began - start,
    }  # fmt: skip


@contextlib.contextmanager
def database(args: argparse.Namespace, root: Path) -> Iterator[str]:
    """The URL to measure on, loaded at ``--sf`` (an already loaded one is reused)."""
    with contextlib.ExitStack() as stack:
        if args.private_postgres:
            url = stack.enter_context(private_postgres()).url
        else:
            url = args.url or f"duckdb:///{root / 'tpch.duckdb'}"
        if args.whole:  # each side loads its own
            yield url
            return
        db = open_engine(url)
        try:
            options = RunOptions(sf=args.sf, streams=1, runs=1, telemetry_interval=None)
            Benchmark(db, url, options, root / "load").execute(lambda b: b.load())
        finally:
            db.close()
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3, help="pairs of plans off / explain")
    parser.add_argument("--url", default="", help="a loaded (or empty) database; default DuckDB")
    parser.add_argument(
        "--private-postgres", action="store_true", help="a PostgreSQL server of its own"
    )
    parser.add_argument(
        "--whole", action="store_true", help="each side a whole `dbbench run` (load included)"
    )
    parser.add_argument("--runs", type=int, default=2, help="performance runs with --whole")
    args = parser.parse_args()
    if args.pairs < 1 or args.streams < 1 or args.runs < 1:
        raise SystemExit("--pairs, --streams and --runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="dbbench-plans-") as tmp:
        root = Path(tmp)
        with database(args, root) as url:
            engine = url.split(":", 1)[0]
            loads = [os.getloadavg()[0]]
            count = iter(range(1, 2 * args.pairs + 1))

            def side(mode: PlanMode) -> Timings:
                n = next(count)
                where = url
                if args.whole and url.startswith("duckdb:") and not args.url:
                    where = f"duckdb:///{root / f'{n}.duckdb'}"  # a new database, as make run
                got = one_run(
                    where, args.sf, args.streams, mode, root / f"{n}-{mode}",
                    args.runs if args.whole else 0,
                )  # fmt: skip
                if where != url:
                    for left in root.glob(f"{n}.duckdb*"):
                        left.unlink()
                print(
                    f"run {n:2} plans {mode:7}: wall {got['total']:8.2f} s, capture "
                    f"{got['capture']:5.2f} s (CPU {got['capture_cpu']:4.2f} of "
                    f"{got['cpu']:6.2f} s), reports {got['reports']:5.2f} s, "
                    f"load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                return got

            pairs = alternate_pairs(args.pairs, lambda: side("off"), lambda: side("explain"))
            loads += [t["load"] for pair in pairs for t in pair]
    off = [p[0]["total"] for p in pairs]
    on = [p[1]["total"] for p in pairs]
    added = [
        (p[1]["capture"] + max(0.0, p[1]["reports"] - p[0]["reports"])) / p[0]["total"]
        for p in pairs
    ]
    what = f"load + {args.runs} x " if args.whole else ""
    print(
        f"{engine} SF {args.sf:g}, {what}power + throughput (S={args.streams}) + reports, "
        f"{args.pairs} pairs alternating; {os.cpu_count()} CPUs, {platform.python_version()}"
    )
    print(
        f"  load average (1 min) during the runs: median {statistics.median(loads):.1f} "
        f"({min(loads):.1f}..{max(loads):.1f})"
    )
    print(f"  wall plans off: {median_and_spread(off, '{:.2f} s')}")
    print(f"  wall explain:   {median_and_spread(on, '{:.2f} s')}")
    ratios = [b / a for a, b in zip(off, on, strict=True)]
    print(f"  whole wall explain / off per pair: {median_and_spread(ratios)}")
    same = [p[1]["before"] / p[0]["before"] for p in pairs]
    print(f"  of which the same work before the capture, explain / off: {median_and_spread(same)}")
    share = statistics.median(added)
    shares = median_and_spread([100 * a for a in added], "{:.2f} %")
    verdict = "met" if share < TARGET else "NOT met"
    print(f"  capture + its reports' share of the run: {shares}; target < 2 %: {verdict}")
    cpu = median_and_spread([100 * p[1]["capture_cpu"] / p[1]["cpu"] for p in pairs], "{:.2f} %")
    print(f"  capture's share of this process's CPU (an in-process engine's work): {cpu}")
    extra = [p[1]["capture"] + max(0.0, p[1]["reports"] - p[0]["reports"]) for p in pairs]
    print(
        f"  least disturbed (best of each side, as the other load benchmarks): capture + its "
        f"reports {min(extra):.2f} s over plans off {min(off):.2f} s = "
        f"{100 * min(extra) / min(off):.2f} %"
    )


if __name__ == "__main__":
    main()
