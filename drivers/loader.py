"""The load test's data path: generate the eight tables and stream them into an engine.

Generation runs in worker processes (``jobs`` of them), each producing one *part* of a table
(dbgen's ``-C/-S`` chunking), so the engine is never waiting on one Python thread. Batches
travel to the loading threads as Arrow IPC messages through one bounded queue per table
(memory stays flat at any scale factor); tables load concurrently where the engine declares
``parallel_load``. Parts are handed to the workers in the order their tables are consumed,
which is what keeps the bounded queues from deadlocking: a worker only ever waits on a table
whose consumer is running. Small loads generate inline, in the loading thread.

Worker processes come from a forkserver, so a script that calls :func:`load_database` needs
the usual ``if __name__ == "__main__":`` guard (the ``dbbench`` command has it).
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import (
    STATE_KIT_VERSION,
    STATE_LOAD_SECONDS,
    STATE_LOADED_AT,
    STATE_NEXT_UPDATE_SET,
    STATE_SCALE_FACTOR,
    Engine,
)
from dbbench.drivers.errors import DriversError
from dbbench.reports.model import kit_version

#: ``progress(table, rows_done, rows_expected)``, called from loading threads.
Progress = Callable[[str, int, int], None]

#: The module that generates the data: ``table_batches`` and ``row_count`` as in dbgen.api.
DEFAULT_SOURCE = "dbbench.dbgen.api"
ROWS_PER_PART = 500_000  # a part is the unit of parallel generation
QUEUE_BATCHES = 4  # batches in flight per part: bounds memory
PROCESS_MIN_ROWS = 2_000_000  # below this, worker processes cost more than they save


@dataclass
class LoadStats:
    """What the load test measured: seconds per step and rows per table."""

    sf: float
    rows: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # create_schema, load, keys, ...
    table_seconds: dict[str, float] = field(default_factory=dict)
    total_seconds: float = 0.0


@dataclass(frozen=True)
class _Unit:
    table: str
    part: int
    parts: int
    slot: int


def _source(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise DriversError(f"cannot import the data generator {name}: {exc}") from None


def _format_sf(sf: float) -> str:
    return format(sf, "g")


def load_database(
    engine: Engine,
    sf: float,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    source: str = DEFAULT_SOURCE,
) -> LoadStats:
    """Create the schema, load all eight tables, add keys and statistics, record the state.

    The whole is the spec's load test: timed from the first CREATE until the database is
    ready for queries. ``source`` names the generator module (tests may pass another)."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    gen = _source(source)
    stats = LoadStats(sf)
    expected = {t: int(gen.row_count(t, sf)) for t in TABLES}  # validates sf before any DROP
    start = time.perf_counter()
    engine.create_schema()
    stats.seconds["create_schema"] = time.perf_counter() - start
    step = time.perf_counter()
    if engine.capabilities.distributed_generation:
        _generate_in_engine(engine, sf, expected, progress, source, stats)
    else:
        _load_tables(engine, sf, jobs, expected, progress, source, stats)
    stats.seconds["load"] = time.perf_counter() - step
    stats.seconds.update(engine.finish_load())
    stats.total_seconds = time.perf_counter() - start
    engine.write_state(
        {
            STATE_SCALE_FACTOR: _format_sf(sf),
            STATE_NEXT_UPDATE_SET: "1",
            STATE_LOAD_SECONDS: f"{stats.total_seconds:.3f}",
            STATE_LOADED_AT: datetime.now(UTC).isoformat(timespec="seconds"),
            STATE_KIT_VERSION: kit_version(),
        }
    )
    return stats


def _generate_in_engine(
    engine: Engine,
    sf: float,
    expected: dict[str, int],
    progress: Progress | None,
    source: str,
    stats: LoadStats,
) -> None:
    """The engine runs the generator on its own workers, largest table first (tables at
    once where the engine declares ``parallel_load``: its scheduler shares the workers)."""
    order = sorted(TABLES, key=lambda t: -expected[t])
    lock = threading.Lock()

    def one(table: str) -> None:
        began = time.perf_counter()
        rows = engine.generate_table(table, sf, source)
        with lock:
            stats.rows[table] = rows
            stats.table_seconds[table] = time.perf_counter() - began
        if progress is not None:
            progress(table, rows, expected[table])

    workers = len(order) if engine.capabilities.parallel_load else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(one, t) for t in order]:
            future.result()


def _plan(expected: dict[str, int], jobs: int, parallel: bool) -> list[_Unit]:
    """Parts per table, in the order the workers get them (see the module docstring)."""
    order = sorted(TABLES, key=lambda t: -expected[t])
    parts = {t: max(1, min(4 * jobs, math.ceil(expected[t] / ROWS_PER_PART))) for t in order}
    pairs: list[tuple[str, int]] = []
    if parallel:  # round robin over tables
        for k in range(1, max(parts.values()) + 1):
            pairs.extend((t, k) for t in order if k <= parts[t])
    else:  # table after table, in the order they are consumed
        pairs = [(t, k) for t in order for k in range(1, parts[t] + 1)]
    return [_Unit(t, k, parts[t], order.index(t)) for t, k in pairs]


def _load_tables(
    engine: Engine,
    sf: float,
    jobs: int,
    expected: dict[str, int],
    progress: Progress | None,
    source: str,
    stats: LoadStats,
) -> None:
    parallel = engine.capabilities.parallel_load
    units = _plan(expected, jobs, parallel)
    order = sorted(TABLES, key=lambda t: -expected[t])
    use_processes = jobs > 1 and sum(expected.values()) >= PROCESS_MIN_ROWS
    feed: _InlineFeed | _ProcessFeed
    if use_processes:
        feed = _ProcessFeed(units, order, sf, source, jobs)
    else:
        feed = _InlineFeed(units, sf, source)
    lock = threading.Lock()
    failed = threading.Event()  # one table failed: the others stop at their next batch

    def load_one(table: str) -> None:
        done = 0

        def counted() -> Iterator[pa.RecordBatch]:
            nonlocal done
            for batch in feed.batches(table):
                if failed.is_set():
                    raise DriversError(f"loading {table} stopped: another table failed")
                done += batch.num_rows
                if progress is not None:
                    progress(table, done, expected[table])
                yield batch

        began = time.perf_counter()
        try:
            rows = engine.load_table(table, counted())
        except BaseException:
            failed.set()
            raise
        with lock:
            stats.rows[table] = rows
            stats.table_seconds[table] = time.perf_counter() - began

    try:
        if parallel:
            with ThreadPoolExecutor(max_workers=len(order)) as pool:
                futures = [pool.submit(load_one, t) for t in order]
            errors = [e for e in (f.exception() for f in futures) if e is not None]
            if errors:  # the first cause, not the "stopped" errors it provoked
                first = [e for e in errors if "another table failed" not in str(e)]
                raise (first or errors)[0]
        else:
            for table in order:
                load_one(table)
    finally:
        feed.close()


class _InlineFeed:
    """Generation in the loading thread itself, parts in order: small SF and ``jobs=1``."""

    def __init__(self, units: list[_Unit], sf: float, source: str) -> None:
        self.units = units
        self.sf = sf
        self.gen = _source(source)
        # Warm the generator's lazy caches (the text pool) once, here, rather than in
        # several loading threads at once, each of which would build or verify them.
        for _ in self.gen.table_batches("region", sf):
            break

    def batches(self, table: str) -> Iterator[pa.RecordBatch]:
        for unit in (u for u in self.units if u.table == table):
            yield from self.gen.table_batches(table, self.sf, part=unit.part, parts=unit.parts)

    def close(self) -> None:
        pass


_WORKER_QUEUES: list[Any] = []


def _init_worker(queues: list[Any]) -> None:
    _WORKER_QUEUES[:] = queues


def _produce(slot: int, source: str, table: str, sf: float, part: int, parts: int) -> None:
    """Runs in a worker process: one part of one table into its table's queue, then
    ``None`` (the consumer counts one per part)."""
    out = _WORKER_QUEUES[slot]
    try:
        gen = importlib.import_module(source)
        for batch in gen.table_batches(table, sf, part=part, parts=parts):
            out.put(batch.serialize().to_pybytes())
    except Exception as exc:
        where = f"generating {table} part {part}/{parts} failed"
        out.put(("dbgen" if isinstance(exc, DbgenError) else "other", f"{where}: {exc}"))
        return
    out.put(None)


class _ProcessFeed:
    """Worker processes (forkserver: cheap starts, no inherited threads or connections).

    All parts of a table share one bounded queue, so the workers on one table never wait
    for each other; batches of different parts interleave (rows are not in key order)."""

    def __init__(
        self, units: list[_Unit], order: list[str], sf: float, source: str, jobs: int
    ) -> None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([source])
        self.order = order
        self.parts = {t: sum(1 for u in units if u.table == t) for t in order}
        self.queues = [ctx.Queue(QUEUE_BATCHES * jobs) for _ in order]
        self.pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(self.queues,))
        self.results = {
            u: self.pool.apply_async(_produce, (u.slot, source, u.table, sf, u.part, u.parts))
            for u in units
        }

    def batches(self, table: str) -> Iterator[pa.RecordBatch]:
        schema = TABLES[table].arrow_schema
        inbox = self.queues[self.order.index(table)]
        remaining = self.parts[table]
        while remaining:
            try:
                item = inbox.get(timeout=1.0)
            except queue.Empty:
                self._raise_failed(table)
                continue
            if item is None:
                remaining -= 1
            elif isinstance(item, tuple):
                kind, message = item
                raise (DbgenError if kind == "dbgen" else DriversError)(message)
            else:
                yield pa.ipc.read_record_batch(pa.py_buffer(item), schema)

    def _raise_failed(self, table: str) -> None:
        """A worker that died without a word (killed, out of memory) fails its task."""
        for unit, result in self.results.items():
            if unit.table == table and result.ready() and not result.successful():
                result.get()

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()
        for q in self.queues:
            q.close()
            q.cancel_join_thread()


def check_loaded(engine: Engine, sf: float) -> None:
    """Refuse to reuse a database that dbbench did not load at this scale factor.

    Tables the refresh functions never touch must match exactly; ORDERS and LINEITEM may
    drift by the refresh pairs already run (RF1 and RF2 change LINEITEM by different
    amounts, and an interrupted pair leaves ORDERS one update set off)."""
    state = engine.read_state()
    if STATE_SCALE_FACTOR not in state:
        raise DriversError("the database was not loaded by dbbench (no dbbench_state); load it")
    loaded = float(state[STATE_SCALE_FACTOR])
    if not math.isclose(loaded, sf, rel_tol=1e-9):
        raise DriversError(f"the database holds scale factor {_format_sf(loaded)}, not {sf:g}")
    gen = _source(DEFAULT_SOURCE)
    counts = engine.row_counts()
    for table in TABLES:
        want = int(gen.row_count(table, sf))
        have = counts[table]
        drift = 0.01 * want if table in ("orders", "lineitem") else 0
        if abs(have - want) > drift:
            raise DriversError(
                f"table {table} has {have} rows, expected {want} at SF {sf:g}; reload it"
            )
