"""What dbbench adds to each query's measured time, against the raw driver alone.

A trivial query (``SELECT 1``) is run many times two ways on the same engine:

* raw: the driver's own cursor, ``execute`` + ``fetchall``, timed with ``perf_counter``;
* dbbench: the sequencer's path for one query — watchdog armed (a timeout is set), the
  session's ``query``, the interval built, the journal line written and flushed.

The difference of the medians is the per-query overhead of the harness (target: < 1 ms).

With ``--executors URL --sf SF`` it also answers the other question of the throughput test:
do S query streams run faster on S threads of one process, or on S processes? Each stream
runs its 22 queries (Appendix-A order, qgen parameters) on a session of its own; the wall
time from a common start to the last stream's end is compared. The database must already
be loaded at ``SF`` (``dbbench load``).

Run: ``python benchmarks/harness_overhead.py [--repeat N] [--postgresql URL]
[--executors URL --sf SF --streams S]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dbbench.drivers.engine import Engine
from dbbench.drivers.journal import Journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.streams import timed_query
from dbbench.drivers.sequencer.watchdog import Watchdog
from dbbench.drivers.url import redact
from dbbench.queries.order import stream_order
from dbbench.queries.params import stream_parameters
from dbbench.queries.render import RenderedQuery, render
from dbbench.reports.model import JOURNAL_FILE
from dbbench.reports.tpch.model import RunResult

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
    with Journal(folder / JOURNAL_FILE) as journal:
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


def _spread(samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=4)
    return f"IQR {q[0] * 1e6:.0f}-{q[2] * 1e6:.0f} us"


def measure(name: str, url: str, raw_cursor: Callable[[Engine], Any], repeat: int) -> None:
    """Raw and dbbench alternate in ten blocks, so a busy neighbour slows both alike."""
    engine = open_engine(url)
    raw: list[float] = []
    kit: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cursor = raw_cursor(engine)
            raw_driver(cursor, repeat // 10)  # warm up both paths
            dbbench_path(engine, repeat // 10, Path(tmp))
            for _ in range(10):
                raw += raw_driver(cursor, repeat // 10)
                kit += dbbench_path(engine, repeat // 10, Path(tmp))
        version = engine.version()
    finally:
        engine.close()
    print(
        f"{name:<11} raw driver {_median_us(raw):7.1f} us ({_spread(raw)})   "
        f"dbbench {_median_us(kit):7.1f} us ({_spread(kit)})   "
        f"overhead {_median_us(kit) - _median_us(raw):6.1f} us per query "
        f"(medians of {len(raw)}; {version})"
    )


def _duckdb_cursor(engine: Engine) -> Any:
    return engine.session().conn  # type: ignore[attr-defined]


def _pg_cursor(engine: Engine) -> Any:
    return engine.session().conn.cursor()  # type: ignore[attr-defined]


def _stream(url: str, sf: float, stream: int, start: Any, skip: frozenset[int]) -> float:
    """One query stream on an engine of its own; returns the wall time of its end."""
    engine = open_engine(url)
    session = engine.session()
    params = stream_parameters(1000 + stream, sf)
    start.wait()
    for query in (q for q in stream_order(stream) if q not in skip):
        rendered = render(query, params[query], dialect=engine.dialect, stream=stream)
        for sql in rendered.setup:
            session.execute(sql)
        session.query(rendered.query)
        for sql in rendered.teardown:
            session.execute(sql)
    end = time.time()
    session.close()
    engine.close()
    return end


def _threads(url: str, sf: float, streams: int, skip: frozenset[int]) -> float:
    start = threading.Barrier(streams + 1)
    with ThreadPoolExecutor(streams) as pool:
        futures = [pool.submit(_stream, url, sf, s, start, skip) for s in range(1, streams + 1)]
        start.wait()
        began = time.time()
        return max(f.result() for f in futures) - began


def _processes(url: str, sf: float, streams: int, skip: frozenset[int]) -> float:
    ctx = multiprocessing.get_context("forkserver")
    with ctx.Manager() as manager:
        start = manager.Barrier(streams + 1)
        with ProcessPoolExecutor(streams, mp_context=ctx) as pool:
            futures = [pool.submit(_stream, url, sf, s, start, skip) for s in range(1, streams + 1)]
            start.wait()
            began = time.time()
            return max(f.result() for f in futures) - began


def compare_executors(url: str, sf: float, streams: int, rounds: int) -> None:
    """Best of ``rounds`` for each executor, alternating so drift hits both alike."""
    times: dict[str, list[float]] = {"threads": [], "processes": []}
    proc_url, skip = url, frozenset[int]()
    if url.startswith("duckdb"):
        # One process may write a DuckDB file; others can only open it read-only, where
        # Q15's view (and any refresh function) is impossible: compare the other 21 queries.
        proc_url = url + ("&" if "?" in url else "?") + "access_mode=READ_ONLY"
        skip = frozenset({15})
    for _ in range(rounds):
        times["threads"].append(_threads(url, sf, streams, skip))
        times["processes"].append(_processes(proc_url, sf, streams, skip))
    shown = ", ".join(f"{k} {min(v):.2f} s (best; worst {max(v):.2f} s)" for k, v in times.items())
    print(
        f"{streams} streams x {22 - len(skip)} queries at SF {sf:g} on {redact(url)}: "
        f"{shown}, {rounds} alternating rounds"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5000)
    parser.add_argument("--postgresql", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--executors", metavar="URL", help="compare threads and processes")
    parser.add_argument("--sf", type=float, default=0.1)
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{platform.platform()}, {os.cpu_count()} CPUs, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    if args.executors:
        compare_executors(args.executors, args.sf, args.streams, args.rounds)
        return
    measure("duckdb", "duckdb", _duckdb_cursor, args.repeat)
    try:
        measure("postgresql", args.postgresql, _pg_cursor, args.repeat)
    except Exception as exc:  # no server here: say so and keep the DuckDB figure
        print(f"postgresql  skipped: {exc}")


if __name__ == "__main__":
    main()
