"""The load test's data path: generate the eight tables and stream them into an engine.

Generation runs in worker processes (``jobs`` of them), each producing one *part* of a table
(dbgen's ``-C/-S`` chunking), so the engine is never waiting on one Python thread. A worker
writes each batch as an Arrow IPC file into a private spool directory in shared memory
(``/dev/shm``) and sends its name through one bounded queue per table (memory stays flat at
any scale factor); the loading thread memory-maps the file and unlinks it, so the batch
reaches the engine without a copy: no pickling, no pipe (measured at SF1: the pipe cost
about as much CPU as generating LINEITEM). Tables load concurrently where the engine
declares ``parallel_load``. Parts are handed to the workers in the order their tables are consumed,
which is what keeps the bounded queues from deadlocking: a worker only ever waits on a table
whose consumer is running. Small loads generate inline, in the loading thread.

Worker processes come from a forkserver, so a script that calls :func:`load_database` needs
the usual ``if __name__ == "__main__":`` guard (the ``dbbench`` command has it).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import forkserver, resource_tracker
from typing import Any

import pyarrow as pa

from dbbench.dbgen import api
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.memory import reuse_freed_memory
from dbbench.dbgen.progress import NullSink, ProgressSink
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.spool import make_spool
from dbbench.drivers.engine import (
    STATE_KIT_VERSION,
    STATE_LINEITEM_ROWS,
    STATE_LOAD_SECONDS,
    STATE_LOADED_AT,
    STATE_NEXT_UPDATE_SET,
    STATE_REFRESH_PENDING,
    STATE_SCALE_FACTOR,
    Engine,
    GeneratesData,
    TableSource,
)
from dbbench.drivers.engines.common import wait_for
from dbbench.drivers.errors import DriversError
from dbbench.drivers.workload_rows import workload_rows
from dbbench.reports.model import kit_version

ROWS_PER_PART = 500_000  # a part is the unit of parallel generation
QUEUE_BATCHES = 4  # batches in flight per part: bounds memory
PROCESS_MIN_ROWS = 2_000_000  # below this, worker processes cost more than they save
SPOOL_PREFIX = "dbbench-load-"  # + the loading process's id
SPOOL_MIN_BYTES = 1 << 30  # shared memory is used for the batches in flight if it has this


@dataclass
class LoadStats:
    """What the load test measured: seconds per step and rows per table."""

    sf: float
    rows: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # create_schema, load, keys, ...
    table_seconds: dict[str, float] = field(default_factory=dict)
    total_seconds: float = 0.0


class DbgenSource:
    """The kit's own generator, :mod:`dbgen.api`: the source of every real load."""

    def row_count(self, table: str, sf: float) -> int:
        return api.row_count(table, sf)

    def table_batches(
        self, table: str, sf: float, *, part: int = 1, parts: int = 1
    ) -> Iterator[pa.RecordBatch]:
        return api.table_batches(table, sf, part=part, parts=parts)


DBGEN = DbgenSource()


def _format_sf(sf: float) -> str:
    return format(sf, "g")


def load_database(
    engine: Engine,
    sf: float,
    *,
    jobs: int | None = None,
    progress: ProgressSink | None = None,
    source: TableSource = DBGEN,
) -> LoadStats:
    """Create the schema, load all eight tables, add keys and statistics, record the state.

    The whole is the spec's load test: timed from the first CREATE until the database is
    ready for queries. ``progress`` hears of rows as they are loaded (from the loading
    threads); ``source`` is the generator, dbgen unless a test passes another."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    stats = LoadStats(sf)
    expected = {t: source.row_count(t, sf) for t in TABLES}  # validates sf before any DROP
    start = time.perf_counter()
    engine.create_schema()
    stats.seconds["create_schema"] = time.perf_counter() - start
    step = time.perf_counter()
    if isinstance(engine, GeneratesData):
        parallel = engine.capabilities.parallel_load
        _generate_in_engine(engine, parallel, sf, expected, progress or NullSink(), source, stats)
    else:
        _load_tables(engine, sf, jobs, expected, progress or NullSink(), source, stats)
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
            STATE_REFRESH_PENDING: "",
            STATE_LINEITEM_ROWS: str(expected["lineitem"]),
        }
    )
    return stats


def _generate_in_engine(
    engine: GeneratesData,
    parallel: bool,
    sf: float,
    expected: dict[str, int],
    progress: ProgressSink,
    source: TableSource,
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
        progress.advance(rows, 0)
        progress.output_done(table)

    workers = len(order) if parallel else 1
    progress.start(sum(expected.values()), len(order))
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for future in [pool.submit(one, t) for t in order]:
                future.result()
    finally:
        progress.finish()


@dataclass(frozen=True)
class _Unit:
    """One unit of a plan: part ``part`` of ``parts`` of ``table``, the table's ``slot`` in
    the order the tables are consumed."""

    table: str
    part: int
    parts: int
    slot: int


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
    progress: ProgressSink,
    source: TableSource,
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
    # (a Ctrl-C right after the pool started: multiprocessing's exit handler terminates it)
    lock = threading.Lock()
    failed = threading.Event()  # one table failed: the others stop at their next batch

    def load_one(table: str) -> None:
        def counted() -> Iterator[pa.RecordBatch]:
            for batch in feed.batches(table):
                if failed.is_set():
                    raise DriversError(f"loading {table} stopped: another table failed")
                progress.advance(batch.num_rows, 0)
                yield batch

        began = time.perf_counter()
        try:
            rows = engine.load_table(table, _Stoppable(counted(), feed.stop))
        except BaseException:
            failed.set()
            raise
        with lock:
            stats.rows[table] = rows
            stats.table_seconds[table] = time.perf_counter() - began
        progress.output_done(table)

    progress.start(sum(expected.values()), len(order))
    try:
        if parallel:
            with ThreadPoolExecutor(max_workers=len(order)) as pool:
                futures = [pool.submit(load_one, t) for t in order]
                try:
                    wait_for(futures)
                except BaseException:  # Ctrl-C: every table stops at its next batch
                    failed.set()
                    feed.stop()
                    wait_for(futures)
                    raise
            errors = [e for e in (f.exception() for f in futures) if e is not None]
            if errors:  # the first cause, not the "stopped" errors it provoked
                first = [e for e in errors if "another table failed" not in str(e)]
                raise (first or errors)[0]
        else:
            for table in order:
                load_one(table)
    finally:
        feed.close()
        progress.finish()


class _Stoppable:
    """A table's batches for :meth:`Engine.load_table`, with a ``stop()`` that any thread
    may call (Ctrl-C) to make the feed stop waiting for its generator workers."""

    def __init__(self, batches: Iterator[pa.RecordBatch], stop: Callable[[], None]) -> None:
        self._batches = batches
        self.stop = stop

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self._batches


class _InlineFeed:
    """Generation in the loading thread itself, parts in order: small SF and ``jobs=1``."""

    def __init__(self, units: list[_Unit], sf: float, source: TableSource) -> None:
        self.units = units
        self.sf = sf
        self.gen = source
        # Warm the generator's lazy caches (the text pool) once, here, rather than in
        # several loading threads at once, each of which would build or verify them.
        for _ in self.gen.table_batches("region", sf):
            break

    def batches(self, table: str) -> Iterator[pa.RecordBatch]:
        for unit in (u for u in self.units if u.table == table):
            yield from self.gen.table_batches(table, self.sf, part=unit.part, parts=unit.parts)

    def stop(self) -> None:
        pass  # the consumer stops between two batches

    def close(self) -> None:
        pass


_WORKER_QUEUES: list[Any] = []


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its leak warning off. After a second
    Ctrl-C (an immediate exit) it removes the queues' semaphores, as it should, but its
    two-line warning would follow dbbench's one line. Once per process; no effect if it runs.
    """
    old = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = "ignore:resource_tracker:UserWarning"
    try:
        resource_tracker.ensure_running()
    finally:
        if old is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = old


def _init_worker(queues: list[Any]) -> None:
    # Ctrl-C on a terminal (or kill of the process group) signals the whole group: the
    # main process stops the load, then terminates the workers. A worker killed by that
    # signal itself could die half-way through a batch on the pipe, on which a loading
    # thread would then wait forever; so the workers leave the group (they were born with
    # SIGINT and SIGTERM blocked, from the forkserver) and take SIGTERM only from the pool.
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # Pool.terminate() uses it
    _WORKER_QUEUES[:] = queues
    reuse_freed_memory()  # batch after batch on the same pages, not fresh ones
    # Out of the group, a worker would outlive a dbbench killed with SIGKILL: it follows
    # its parent (the forkserver, which ends with dbbench) instead.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _produce(
    slot: int, source: TableSource, table: str, sf: float, part: int, parts: int, spool: str
) -> None:
    """Runs in a worker process: one part of one table, each batch an IPC file in ``spool``
    whose name goes into its table's queue, then ``None`` (the consumer counts one per part).
    """
    out = _WORKER_QUEUES[slot]
    try:
        batches = source.table_batches(table, sf, part=part, parts=parts)
        for n, batch in enumerate(batches):
            path = os.path.join(spool, f"{table}-{part}-{n}.arrow")
            with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, batch.schema) as ipc:
                ipc.write_batch(batch)
            out.put(path)
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
        self, units: list[_Unit], order: list[str], sf: float, source: TableSource, jobs: int
    ) -> None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([type(source).__module__])
        self.order = order
        self.parts = {t: sum(1 for u in units if u.table == t) for t in order}
        self.stopping = threading.Event()
        _quiet_resource_tracker()
        # Ctrl-C and kill signal the whole process group. The forkserver (and each worker
        # it forks) inherits this mask: a signal during its imports cannot kill it with a
        # traceback. Starting the pool is not interrupted half-way (a worker would die of
        # its torn start with a traceback); a signal meanwhile is handled right after.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            forkserver.ensure_running()
            self.spool = make_spool(SPOOL_PREFIX, SPOOL_MIN_BYTES)
            self.queues = [ctx.Queue(QUEUE_BATCHES * jobs) for _ in order]
            self.pool = ctx.Pool(jobs, initializer=_init_worker, initargs=(self.queues,))
            self.results = {
                u: self.pool.apply_async(
                    _produce, (u.slot, source, u.table, sf, u.part, u.parts, self.spool)
                )
                for u in units
            }
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def batches(self, table: str) -> Iterator[pa.RecordBatch]:
        schema = TABLES[table].arrow_schema
        inbox = self.queues[self.order.index(table)]
        remaining = self.parts[table]
        while remaining:
            try:
                item = inbox.get(timeout=1.0)
            except queue.Empty:
                if self.stopping.is_set():
                    raise DriversError(f"loading {table} stopped") from None
                self._raise_failed(table)
                continue
            if item is None:
                remaining -= 1
            elif isinstance(item, tuple):
                kind, message = item
                raise (DbgenError if kind == "dbgen" else DriversError)(message)
            else:
                yield _take_batch(item, schema)

    def _raise_failed(self, table: str) -> None:
        """A worker that died without a word (killed, out of memory) fails its task."""
        for unit, result in self.results.items():
            if unit.table == table and result.ready() and not result.successful():
                result.get()

    def stop(self) -> None:
        self.stopping.set()

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()
        for q in self.queues:
            q.close()
            q.cancel_join_thread()
        shutil.rmtree(self.spool, ignore_errors=True)  # batches nobody took (a failure)


def _take_batch(path: str, schema: pa.Schema) -> pa.RecordBatch:
    """The batch in a spool file, memory-mapped (no copy); the file is unlinked at once, its
    memory lives until the engine has let go of the batch."""
    source = pa.memory_map(path)
    try:
        batch = pa.ipc.open_stream(source).read_next_batch()
    finally:
        source.close()
        os.unlink(path)
    if not batch.schema.equals(schema):
        raise DriversError(f"a generator batch has schema {batch.schema}, expected {schema}")
    return batch


def check_loaded_state(engine: Engine, sf: float) -> dict[str, str]:
    """The state of a database dbbench loaded at this scale factor, else one line: what
    ``power`` and ``throughput`` check before their run directory is made."""
    state = engine.read_state()
    if STATE_SCALE_FACTOR not in state:
        raise DriversError("the database was not loaded by dbbench (no dbbench_state); load it")
    loaded = float(state[STATE_SCALE_FACTOR])
    if not math.isclose(loaded, sf, rel_tol=1e-9):
        raise DriversError(f"the database holds scale factor {_format_sf(loaded)}, not {sf:g}")
    return state


def check_loaded(engine: Engine, sf: float) -> None:
    """Refuse to reuse a database that dbbench did not load at this scale factor, or whose
    contents are not exactly what the load and the completed refresh pairs left.

    Tables the refresh functions never touch, and ORDERS (a completed pair inserts and
    deletes the same number of orders), must match exactly; LINEITEM must match the count
    the bookkeeping kept (RF1 and RF2 change it by different amounts). A half-applied pair
    must have been repaired first (``refresh.repair_pending``)."""
    state = check_loaded_state(engine, sf)
    if state.get(STATE_REFRESH_PENDING):
        raise DriversError(
            f"update set {state[STATE_REFRESH_PENDING]} was left half-applied; "
            "run dbbench power (or run) on it to repair it, or reload it"
        )
    counts = engine.row_counts()
    # another workload's own orders (o2c's; keys above all of TPC-H's) are not TPC-H's
    for table, rows in workload_rows(engine).items():
        counts[table] -= rows
    for table in TABLES:
        want = api.row_count(table, sf)
        have = counts[table]
        if table == "lineitem" and STATE_LINEITEM_ROWS in state:
            want = int(state[STATE_LINEITEM_ROWS])
        elif table == "lineitem" and abs(have - want) <= 0.01 * want:
            continue  # loaded by an older dbbench: no exact count kept
        if have != want:
            raise DriversError(
                f"table {table} has {have} rows, expected {want} at SF {sf:g}; reload it"
            )
