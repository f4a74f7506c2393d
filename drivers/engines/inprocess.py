"""What the in-process, in-memory engines (DataFusion, Polars) share: tables held as
immutable Arrow-backed snapshots that a refresh function replaces as a whole, the kit's
bookkeeping in a Python dictionary, and the URL check.

**Consistency.** A query takes the engine's table lock only while it is planned: the plan
holds the snapshots it read, so it runs to its last row on them without the lock, side by
side with the other streams (both engines execute outside Python's lock). A refresh function
builds its new tables with Arrow compute and swaps them in under the same lock, both tables
of an RF transaction at once: a query sees an update set's orders and line items entirely or
not at all, and a swap never waits for a running query.

**Lifetime.** The database lives as long as the engine object, in this process's memory: a
fresh process (or a second ``open_engine`` on the same URL) finds an empty database, and a
benchmark run loads it each time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL

#: Disclosed by both engines: how RF1 and RF2 change the tables.
REFRESH_METHOD = (
    "copy-on-write: RF1 appends the new rows' Arrow batches, RF2 filters the batches holding "
    "deleted keys (Arrow compute); orders and lineitem are swapped in together under the "
    "table lock queries are planned under"
)
LIFETIME = "in this process's memory: a new process starts with an empty database"


def check_in_memory_url(url: EngineURL, form: str) -> None:
    """An in-memory engine's URL names no server and no file."""
    if url.username or url.password or url.host or url.port or url.database:
        raise DriversError(
            f"a {url.scheme} URL names an in-memory database in this process: {url.render()} "
            f"takes no user, password, host, port or path ({form})"
        )


T = TypeVar("T")  # how an engine holds one table's data


class MemoryEngine(Engine, Generic[T]):
    r"""Bookkeeping and the table lock of an in-memory engine; its tables are ``T`` values
    that a refresh builds anew (:meth:`appended`, :meth:`filtered`) and :meth:`swap`\ s in."""

    policy: ErrorPolicy
    #: disclosed beside the shared facts: how the streams run, where Q15's view lives
    streams_method: ClassVar[str]
    q15_method: ClassVar[str]

    def __init__(self, url: EngineURL) -> None:
        self.url = url
        #: held while a query is planned and while a refresh swaps tables
        self.tables_lock = threading.RLock()
        self._state: dict[str, str] = {}
        self._state_lock = threading.Lock()

    def read_state(self) -> dict[str, str]:
        with self._state_lock:
            return dict(self._state)

    def write_state(self, values: dict[str, str]) -> None:
        with self._state_lock:
            self._state.update({str(k): str(v) for k, v in values.items()})

    def clear_state(self) -> None:
        with self._state_lock:
            self._state.clear()

    def settings(self) -> dict[str, str]:
        """The engine's own settings (:meth:`own_settings`), then what every in-memory engine
        discloses: where the database lives, how the streams run, the refresh method, Q15."""
        return {
            **self.own_settings(),
            "database": LIFETIME,
            "streams": self.streams_method,
            "refresh": REFRESH_METHOD,
            "q15": self.q15_method,
        }

    def own_settings(self) -> dict[str, str]:
        return {}

    def appended(self, table: str, rows: pa.Table) -> T:
        """The table with ``rows`` added (the caller holds the table lock)."""
        raise NotImplementedError

    def filtered(self, table: str, column: str, keys: pa.Array) -> tuple[T, int]:
        """The table without the rows whose ``column`` is one of ``keys``; rows removed."""
        raise NotImplementedError

    def swap(self, new: dict[str, T]) -> None:
        """Replace the tables in ``new`` together (under the table lock)."""
        raise NotImplementedError


E = TypeVar("E", bound=MemoryEngine[Any])


class MemorySession(Session, Generic[E]):
    """A stream's handle on an in-memory engine (no connection): the refresh functions
    build both tables anew and swap them in together, under the table lock."""

    def __init__(self, engine: E) -> None:
        self.engine = engine
        self.policy = engine.policy

    def refresh_insert(self, orders: pa.Table, lineitem: pa.Table) -> int:
        """RF1: the new rows added to both tables, swapped in together."""
        with self.policy.guard("RF1"), self.engine.tables_lock:
            new = {
                table: self.engine.appended(table, rows)
                for table, rows in (("orders", orders), ("lineitem", lineitem))
            }
            self.engine.swap(new)
        return int(orders.num_rows + lineitem.num_rows)

    def refresh_delete(self, orderkeys: Sequence[int]) -> int:
        """RF2: both tables without the orders' rows, swapped in together."""
        keys = key_array(orderkeys)
        deleted = 0
        with self.policy.guard("RF2"), self.engine.tables_lock:
            new = {}
            for table, column in (("lineitem", "l_orderkey"), ("orders", "o_orderkey")):
                new[table], removed = self.engine.filtered(table, column, keys)
                deleted += removed
            self.engine.swap(new)
        return deleted

    def close(self) -> None:
        return None


def collect_batches(table: str, batches: Iterable[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """The generator's batches of a table, in its declared schema, each copied into this
    process's memory: the loader hands over batches memory-mapped from its spool in shared
    memory (``/dev/shm``), whose space a table kept for the engine's lifetime would hold."""
    schema = TABLES[table].arrow_schema
    memory = pa.default_cpu_memory_manager()
    kept: list[pa.RecordBatch] = []
    for batch in batches:
        kept.append((batch if batch.schema.equals(schema) else batch.cast(schema)).copy_to(memory))
    return kept


def empty_batch(table: str) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([], schema=TABLES[table].arrow_schema)


def balanced(batches: Sequence[pa.RecordBatch], parts: int) -> list[list[pa.RecordBatch]]:
    """The rows in ``parts`` partitions of nearly equal size (slices, no copy)."""
    data = pa.Table.from_batches(list(batches)) if batches else None
    if data is None or data.num_rows == 0:
        return [list(batches[:1])] if batches else []
    parts = max(1, min(parts, data.num_rows))
    size = -(-data.num_rows // parts)
    return [data.slice(start, size).to_batches() for start in range(0, data.num_rows, size)]


def without_keys(
    batches: Iterable[pa.RecordBatch], column: str, keys: pa.Array
) -> tuple[list[pa.RecordBatch], int]:
    """The batches without the rows whose ``column`` is one of ``keys``; rows removed.
    Batches holding none of them are kept as they are (no copy)."""
    kept: list[pa.RecordBatch] = []
    removed = 0
    for batch in batches:
        hit = pc.is_in(batch.column(column), value_set=keys)
        found = int(np.count_nonzero(hit.to_numpy(zero_copy_only=False)))
        if found:
            removed += found
            batch = batch.filter(pc.invert(hit))
        kept.append(batch)
    return kept, removed


def key_array(orderkeys: Sequence[int]) -> pa.Array:
    return pa.array(np.asarray(orderkeys, dtype=np.int64), pa.int64())
