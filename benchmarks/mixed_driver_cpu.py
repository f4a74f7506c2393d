"""The driver's CPU in a mixed run against each side alone: per dialog step and per query.

One ``dbbench mixed run`` (o2c-only, streams-only, mixed points, through the kit's own
study) on a database server on this host; from each point's measured window:

* o2c only: the driver process's CPU per dialog step (ms);
* streams only: its CPU per completed query (ms);
* mixed: its CPU against what the two alone predict (steps x CPU/step + queries x
  CPU/query): a ratio near 1 means the mix costs the driver nothing beyond its two sides;
  and the driver's share of one core in the mixed window (the issue's budget: under 50 %
  for 1,000 users and 4 streams at 10 s think time).

The CPU is ``time.process_time()`` of the whole driver process over the window (users,
streams and the freshness probe), so an in-process engine (DuckDB) counts its own work as
the driver's: use a server engine. Run: ``python benchmarks/mixed_driver_cpu.py --engine
postgresql://user@127.0.0.1/tpch --users 1000 --streams 4 [--think 10] [--steady 60]``; the
database must be prepared for o2c (``dbbench o2c prepare --users N``). ``--mixed-only``
measures the mixed point alone (its share of one core, the CPU per step and per query in
the mix; no prediction): at 10 s think time each point's window is at least one 151 s loop.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from dbbench.drivers.journal import Journal
from dbbench.drivers.lifecycle import RunScope, open_run
from dbbench.drivers.mixed.point import PointSpec, Settings, run_point
from dbbench.drivers.mixed.study import run_study
from dbbench.drivers.o2c.setup import require_prepared
from dbbench.drivers.o2c.simulator import Progress, RunConfig
from dbbench.drivers.url import redact
from dbbench.queries.params import seed_from_time
from dbbench.reports.mixed.metrics import PointSummary, summarize_mixed, summarize_point
from dbbench.reports.o2c.metrics import Limits


class Quiet:
    """A display that shows only the points' names."""

    label = ""

    def __call__(self, progress: Progress, /) -> None:
        return None

    def note(self, line: str) -> None:
        print(line, flush=True)

    @contextlib.contextmanager
    def shown(self) -> Iterator[Quiet]:
        yield self


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--streams", type=int, default=2)
    ap.add_argument("--think", type=float, default=10.0)
    ap.add_argument("--steady", type=float, default=60.0)
    ap.add_argument("--rampup", type=float, default=None)
    ap.add_argument("--work-processes", type=int, default=None)
    ap.add_argument("--mixed-only", action="store_true", help="No baselines: the mix alone.")
    args = ap.parse_args()
    cfg = RunConfig(
        args.users, args.think, rampup=args.rampup, steady=args.steady,
        work_processes=args.work_processes, progress_interval=3600.0,
    )  # fmt: skip
    with (
        tempfile.TemporaryDirectory(prefix="mixed-cpu-") as tmp,
        open_run([args.engine], out_dir=Path(tmp) / "run", must_exist=True) as scope,
    ):
        sf = require_prepared(scope.engine).scale_factor
        settings = Settings(cfg, sf, seed_from_time(datetime.now()))
        if args.mixed_only:
            mixed_only(scope, settings, args.users, args.streams, args.think)
            return
        result = run_study(scope, [args.users], [args.streams], settings, 1.0, Quiet())
    s = summarize_mixed(result)
    alone = s.point("o2c-only", args.users, 0)
    solo = s.point("streams-only", 0, args.streams)
    mixed = s.point("mixed", args.users, args.streams)
    assert alone and solo and mixed and alone.o2c and solo.streams and mixed.o2c
    assert mixed.streams is not None

    def cpu(p: PointSummary) -> float:
        v = p.point.driver_cpu_seconds
        return v if v is not None else math.nan

    per_step = cpu(alone) / max(alone.o2c.steps, 1)
    per_query = cpu(solo) / max(solo.streams.queries, 1)
    expected = mixed.o2c.steps * per_step + mixed.streams.queries * per_query
    share = cpu(mixed) / mixed.o2c.window_seconds
    print(f"engine {redact(args.engine)}, SF {sf:g}: {args.users} users at {args.think:g} s "
          f"think, {args.streams} streams, {mixed.o2c.window_seconds:.0f} s windows")  # fmt: skip
    print(f"o2c only:     {alone.o2c.steps:,} steps, driver CPU {per_step * 1e3:.3f} ms/step")
    print(
        f"streams only: {solo.streams.queries:,} queries, driver CPU {per_query * 1e3:.3f} ms/query"
    )
    print(
        f"mixed:        {mixed.o2c.steps:,} steps + {mixed.streams.queries:,} queries, driver "
        f"CPU {cpu(mixed):.2f} s against {expected:.2f} s predicted by the two alone "
        f"(x{cpu(mixed) / expected if expected else math.nan:.2f}); {share:.1%} of one core"
    )


def mixed_only(scope: RunScope, settings: Settings, users: int, streams: int, think: float) -> None:
    """The mixed point alone, through the study's own point runner."""
    prepared = require_prepared(scope.engine)
    journal = Journal(scope.journal_path)
    try:
        point = run_point(
            scope, prepared, PointSpec("mixed", users, streams), settings, number=1,
            journal=journal, steps_journal=scope.result_path.with_name("steps.csv"),
        )  # fmt: skip
    finally:
        journal.close()
    p = summarize_point(point, Limits(1.0), settings.sf)
    assert p.o2c is not None and p.streams is not None
    cpu = point.driver_cpu_seconds if point.driver_cpu_seconds is not None else math.nan
    window = p.o2c.window_seconds
    print(f"engine {redact(scope.url)}, SF {settings.sf:g}: {users} users at {think:g} s "
          f"think, {streams} streams, a {window:.0f} s window, status {point.status}")  # fmt: skip
    print(
        f"mixed: {p.o2c.steps:,} steps ({p.o2c.steps / window:.1f}/s, avg RT "
        f"{p.o2c.avg_rt:.3f} s) + {p.streams.queries:,} queries; driver CPU {cpu:.2f} s = "
        f"{cpu / window:.1%} of one core ({cpu / max(p.o2c.steps + p.streams.queries, 1) * 1e3:.3f}"
        " ms per step or query)"
    )


if __name__ == "__main__":
    main()
