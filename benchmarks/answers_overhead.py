"""What keeping every query's output costs a run: the same benchmark with answers kept and
not kept (``--no-answers``), side by side in one process.

One database per engine is loaded once at ``--sf`` (DuckDB in a temporary folder; with
``--postgres URL`` also a PostgreSQL database of that server, created under a name of its
own and dropped afterwards; ``--duckdb URL`` / ``--reuse-postgres URL`` run on a
database loaded before at ``--sf`` instead, left as it is); then pairs of power +
throughput runs on it, answers off and kept, the order swapped from one pair to the next,
telemetry off, plans off (``--plans explain``: the capture ``dbbench run`` makes by
default, after the keeping step).

Printed per run: its wall time; the keeping step's own wall and CPU seconds (digesting
every output and writing the compressed file; CPU: the process's user + system time over
the step); the plan capture's wall seconds; the tail (the wall seconds from the end of the
measured work to the end of the run: answers, plans, the result); the file's bytes and the
1-minute load average. Then per engine, the medians (and spreads) over the pairs of: what
keeping adds to the run's wall, the kept run's tail minus the other's (judged against the
target, < 1 % of the kept run's wall; noisy on a busy machine, it can be negative), the
step's own wall as a share of the kept run's, and its CPU seconds against the kept run's
own CPU seconds (the process's user + system time, the engine's threads included for an
embedded engine; a server's CPU is not in it).

``--whole``: each run is the whole benchmark ``dbbench run`` makes (the load test into a
new database, then two performance runs, the spec's test; DuckDB only), so the shares are
of what a user waits for, the load included.

Run: ``python benchmarks/answers_overhead.py [--sf 1] [--pairs 2] [--plans explain|off]
[--postgres URL] [--no-duckdb] [--duckdb URL] [--reuse-postgres URL] [--whole]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import Benchmark, RunOptions
from dbbench.reports.tpch.model import PlanMode

TARGET = 0.01  # the budget: < 1 % of a run's time


class _TimedBenchmark(Benchmark):
    """A benchmark that notes when its measured work ended (the tail starts there)."""

    measured_end = 0.0


def one_run(
    url: str, sf: float, streams: int, kept: bool, plans: PlanMode, out: Path, whole: bool
) -> dict[str, float]:
    """A power + throughput run on the loaded database (``whole``: the load test and two
    performance runs, as ``dbbench run``): wall, keeping seconds, bytes."""
    runs = 2 if whole else 1
    db = open_engine(url)
    try:
        options = RunOptions(
            sf=sf, streams=streams, runs=runs, seed=1, telemetry_interval=None, plans=plans,
            answers=kept,
        )  # fmt: skip
        bench = _TimedBenchmark(db, url, options, out)

        def steps(b: Benchmark) -> None:
            if whole:
                b.load(reload=True)
            else:
                b.require_loaded()
            for number in range(1, runs + 1):
                b.performance_run(number)
            bench.measured_end = time.perf_counter()

        start, cpu = time.perf_counter(), time.process_time()
        result = bench.execute(steps)
        end, cpu = time.perf_counter(), time.process_time() - cpu
        keeper = bench.ctx.answers
    finally:
        db.close()
    if result.errors:
        raise SystemExit(f"the run failed: {result.errors[0]}")
    answers = result.answers
    assert answers is not None and answers.kept == kept
    if kept and len(answers.records) != 22 * (streams + 1) * runs:
        raise SystemExit("the kept run did not keep every query's output")
    keep_cpu = keeper.cpu_seconds if keeper is not None else 0.0
    return {
        "wall": end - start, "cpu": cpu, "keep": answers.seconds if kept else 0.0,
        "keep_cpu": keep_cpu,
        "plans": result.plans.seconds if result.plans is not None else 0.0,
        "tail": end - bench.measured_end, "bytes": float(answers.bytes),
    }  # fmt: skip


def _spread(values: list[float]) -> str:
    return (
        f"{statistics.median(values):.3%} (median of {len(values)}; "
        f"{min(values):.3%} to {max(values):.3%})"
    )


@contextlib.contextmanager
def postgres_database(base: str) -> Iterator[str]:
    """A database of this benchmark's own on the server of ``base``, dropped afterwards."""
    import psycopg

    name = f"dbbench_answers_bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # type: ignore[arg-type]


def measure(
    label: str, url: str, args: argparse.Namespace, root: Path, *, loaded: bool = False
) -> None:
    if not loaded and not args.whole:
        db = open_engine(url)
        try:
            options = RunOptions(sf=args.sf, streams=1, runs=1, telemetry_interval=None)
            start = time.perf_counter()
            Benchmark(db, url, options, root / "load").execute(lambda b: b.load())
            print(f"{label}: loaded SF {args.sf:g} in {time.perf_counter() - start:.1f} s")
        finally:
            db.close()
    gains, shares, cpu_shares = [], [], []
    for pair in range(args.pairs):
        order = (False, True) if pair % 2 == 0 else (True, False)
        got: dict[bool, dict[str, float]] = {}
        for kept in order:
            out = root / f"{label}-{pair}-{'kept' if kept else 'off'}"
            if args.whole:  # a new database each time
                for old in root.glob("tpch.duckdb*"):
                    old.unlink()
            got[kept] = t = one_run(url, args.sf, args.streams, kept, args.plans, out, args.whole)
            print(
                f"{label} pair {pair + 1} answers {'kept' if kept else 'off '}: wall "
                f"{t['wall']:.2f} s (CPU {t['cpu']:.2f} s), keeping {t['keep']:.3f} s "
                f"(CPU {t['keep_cpu']:.3f} s), plans "
                f"{t['plans']:.3f} s, tail {t['tail']:.3f} s, {t['bytes'] / 1e3:.1f} kB, "
                f"load average {os.getloadavg()[0]:.1f}"
            )
        kept_run = got[True]
        gains.append((kept_run["tail"] - got[False]["tail"]) / kept_run["wall"])
        shares.append(kept_run["keep"] / kept_run["wall"])
        cpu_shares.append(kept_run["keep_cpu"] / kept_run["cpu"])
    gain = statistics.median(gains)
    what = "whole benchmarks (load + 2 runs)" if args.whole else "runs"
    print(
        f"{label} SF {args.sf:g}, {what}, plans {args.plans}: keeping adds "
        f"{_spread(gains)} to a kept run's wall (its tail over the other's; target < {TARGET:.0%}: "
        f"{'met' if gain < TARGET else 'NOT met'}); the step itself {_spread(shares)}; "
        f"its CPU {_spread(cpu_shares)} of the run's"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--plans", choices=["explain", "off"], default="off")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (a database is made)")
    parser.add_argument("--no-duckdb", action="store_true", help="PostgreSQL only")
    parser.add_argument("--duckdb", help="a DuckDB URL loaded before at --sf (not loaded)")
    parser.add_argument(
        "--reuse-postgres", help="a PostgreSQL database loaded before at --sf (not loaded)"
    )
    parser.add_argument(
        "--whole", action="store_true", help="each run: load + 2 runs, as dbbench run (DuckDB)"
    )
    args = parser.parse_args()
    if args.whole and (args.duckdb or args.reuse_postgres or args.postgres or args.no_duckdb):
        parser.error("--whole loads a new DuckDB database per run: no database URLs")
    print(
        f"# answers_overhead: SF {args.sf:g}, {args.pairs} pair(s), S = {args.streams}, "
        f"plans {args.plans}{', whole benchmarks' if args.whole else ''}; "
        f"load average at the start {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory(prefix="dbbench-answers-bench-") as scratch:
        root = Path(scratch)
        if args.duckdb:
            measure("duckdb", args.duckdb, args, root, loaded=True)
        elif not args.no_duckdb:
            measure("duckdb", f"duckdb:///{root / 'tpch.duckdb'}", args, root)
        if args.reuse_postgres:
            measure("postgresql", args.reuse_postgres, args, root, loaded=True)
        if args.postgres:
            with postgres_database(args.postgres) as url:
                measure("postgresql", url, args, root)


if __name__ == "__main__":
    main()
