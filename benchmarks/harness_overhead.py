"""What dbbench adds to each query's measured time, against the raw driver alone.

A trivial query (``SELECT 1``) is run many times two ways on the same engine:

* raw: the driver's own cursor, ``execute`` + ``fetchall``, timed with ``perf_counter``;
* dbbench: the sequencer's path for one query — watchdog armed (a timeout is set), the
  session's ``query``, the interval built, the journal line written and flushed.

The difference of the medians is the per-query overhead of the harness (target: < 1 ms).
Run: ``python benchmarks/harness_overhead.py [--repeat N] [--postgresql URL]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.engine import Engine
from drivers.journal import Journal
from drivers.registry import open_engine
from drivers.sequencer.config import RunOptions
from drivers.sequencer.context import RunContext
from drivers.sequencer.streams import timed_query
from drivers.sequencer.watchdog import Watchdog
from queries.render import RenderedQuery
from reports.model import RunResult

TRIVIAL = RenderedQuery(setup=[], query="SELECT 1", teardown=[])


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def raw_driver(cursor: Any, repeat: int) -> list[float]:
    """The floor: the DB-API cursor alone."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        cursor.execute("SELECT 1")
        cursor.fetchall()
        samples.append(time.perf_counter() - start)
    return samples


def dbbench_path(engine: Engine, repeat: int, folder: Path) -> list[float]:
    """Wall time of a whole query step as the sequencer runs it (not just the interval)."""
    options = RunOptions(sf=1, streams=1, query_timeout=60.0)
    with Journal(folder / "journal.jsonl") as journal:
        ctx = RunContext(engine, options, journal)
        run = RunResult(number=1, streams=1, seeds={})
        session = ctx.open_session()
        watchdog = Watchdog(session, options.query_timeout, engine.capabilities.cancel)
        samples = []
        try:
            for position in range(repeat):
                start = time.perf_counter()
                interval = timed_query(ctx, session, watchdog, TRIVIAL, ("power", 0, position, 1))
                ctx.record(run, interval)
                samples.append(time.perf_counter() - start)
                run.intervals.clear()
        finally:
            watchdog.close()
            ctx.close_session(session)
    return samples


def measure(name: str, url: str, raw_cursor: Callable[[Engine], Any], repeat: int) -> None:
    engine = open_engine(url)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cursor = raw_cursor(engine)
            raw_driver(cursor, repeat // 10)  # warm up both paths
            dbbench_path(engine, repeat // 10, Path(tmp))
            raw = _median_us(raw_driver(cursor, repeat))
            kit = _median_us(dbbench_path(engine, repeat, Path(tmp)))
    finally:
        engine.close()
    print(
        f"{name:<11} raw driver {raw:8.1f} us   dbbench {kit:8.1f} us   "
        f"overhead {kit - raw:7.1f} us per query (median of {repeat})"
    )


def _duckdb_cursor(engine: Engine) -> Any:
    return engine.session().conn  # type: ignore[attr-defined]


def _pg_cursor(engine: Engine) -> Any:
    return engine.session().conn.cursor()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5000)
    parser.add_argument("--postgresql", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    measure("duckdb", "duckdb", _duckdb_cursor, args.repeat)
    try:
        measure("postgresql", args.postgresql, _pg_cursor, args.repeat)
    except Exception as exc:  # no server here: say so and keep the DuckDB figure
        print(f"postgresql  skipped: {exc}")


if __name__ == "__main__":
    main()
