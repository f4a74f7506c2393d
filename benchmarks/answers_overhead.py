"""What keeping every query's output costs a run: the same benchmark with answers kept and
not kept (``--no-answers``), side by side in one process.

One database per engine is loaded once at ``--sf`` (DuckDB in a temporary folder; with
``--postgres URL`` also a PostgreSQL database of that server, created under a name of its
own and dropped afterwards; ``--duckdb URL`` / ``--reuse-postgres URL`` run on a
database loaded before at ``--sf`` instead, left as it is); then pairs of power +
throughput runs on it, answers off and kept, the order swapped from one pair to the next,
telemetry and plans off. Printed per run: its wall time, the keeping step's own wall and
CPU seconds (digesting every output and writing the compressed file, after the measured
work; CPU: the process's user + system time over the step) and the file's bytes, and the
1-minute load average; then per engine the keeping step as a share of the kept run's wall
time (median and spread over the pairs; target < 1 %), its CPU seconds against the kept
run's own CPU seconds (the process's user + system time, the engine's threads included for
an embedded engine; a server's CPU is not in it), and the ratio of the two whole wall times
(on a busy machine mostly its noise).

Run: ``python benchmarks/answers_overhead.py [--sf 1] [--pairs 2] [--postgres URL]
[--no-duckdb] [--duckdb URL] [--reuse-postgres URL]``.
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

TARGET = 0.01  # the budget: < 1 % of a run's time


def one_run(url: str, sf: float, streams: int, kept: bool, out: Path) -> dict[str, float]:
    """A power + throughput run on the loaded database: wall, keeping seconds, bytes."""
    db = open_engine(url)
    try:
        options = RunOptions(
            sf=sf, streams=streams, runs=1, seed=1, telemetry_interval=None, plans="off",
            answers=kept,
        )  # fmt: skip
        bench = Benchmark(db, url, options, out)

        def steps(b: Benchmark) -> None:
            b.require_loaded()
            b.performance_run(1)

        start, cpu = time.perf_counter(), time.process_time()
        result = bench.execute(steps)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        keeper = bench.ctx.answers
    finally:
        db.close()
    if result.errors:
        raise SystemExit(f"the run failed: {result.errors[0]}")
    answers = result.answers
    assert answers is not None and answers.kept == kept
    if kept and len(answers.records) != 22 * (streams + 1):
        raise SystemExit("the kept run did not keep every query's output")
    keep_cpu = keeper.cpu_seconds if keeper is not None else 0.0
    return {
        "wall": wall, "cpu": cpu, "keep": answers.seconds, "keep_cpu": keep_cpu,
        "bytes": float(answers.bytes),
    }  # fmt: skip


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
    if not loaded:
        db = open_engine(url)
        try:
            options = RunOptions(sf=args.sf, streams=1, runs=1, telemetry_interval=None)
            start = time.perf_counter()
            Benchmark(db, url, options, root / "load").execute(lambda b: b.load())
            print(f"{label}: loaded SF {args.sf:g} in {time.perf_counter() - start:.1f} s")
        finally:
            db.close()
    shares, cpu_shares, ratios = [], [], []
    for pair in range(args.pairs):
        order = (False, True) if pair % 2 == 0 else (True, False)
        got: dict[bool, dict[str, float]] = {}
        for kept in order:
            out = root / f"{label}-{pair}-{'kept' if kept else 'off'}"
            got[kept] = t = one_run(url, args.sf, args.streams, kept, out)
            print(
                f"{label} pair {pair + 1} answers {'kept' if kept else 'off '}: wall "
                f"{t['wall']:.2f} s (CPU {t['cpu']:.2f} s), keeping {t['keep']:.3f} s "
                f"(CPU {t['keep_cpu']:.3f} s), {t['bytes'] / 1e3:.1f} kB, "
                f"load average {os.getloadavg()[0]:.1f}"
            )
        shares.append(got[True]["keep"] / got[True]["wall"])
        cpu_shares.append(got[True]["keep_cpu"] / got[True]["cpu"])
        ratios.append(got[True]["wall"] / got[False]["wall"])
    share = statistics.median(shares)
    print(
        f"{label} SF {args.sf:g}: keeping is {share:.3%} of a kept run's wall time (median of "
        f"{len(shares)}; {min(shares):.3%} to {max(shares):.3%}; target < {TARGET:.0%}: "
        f"{'met' if share < TARGET else 'NOT met'}); of its process's CPU time "
        f"{statistics.median(cpu_shares):.3%} ({min(cpu_shares):.3%} to {max(cpu_shares):.3%}); "
        f"wall kept/off {statistics.median(ratios):.3f} ({min(ratios):.3f} to {max(ratios):.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (a database is made)")
    parser.add_argument("--no-duckdb", action="store_true", help="PostgreSQL only")
    parser.add_argument("--duckdb", help="a DuckDB URL loaded before at --sf (not loaded)")
    parser.add_argument(
        "--reuse-postgres", help="a PostgreSQL database loaded before at --sf (not loaded)"
    )
    args = parser.parse_args()
    print(
        f"# answers_overhead: SF {args.sf:g}, {args.pairs} pair(s), S = {args.streams}; "
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
