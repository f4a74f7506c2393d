"""Apache DataFusion (the ``datafusion`` Python bindings), in memory in this process.

``datafusion://`` is an empty database held by one ``SessionContext``; it lives as long as
the engine object (a new process starts empty, so a benchmark run loads it each time).
Options: ``target_partitions=N`` (DataFusion's parallelism and the number of partitions each
table is split into; default: DataFusion's, one per CPU); options starting with
``datafusion.`` are DataFusion settings (``datafusion.execution.batch_size=8192``).

* **Load**: the generator's Arrow batches become in-memory tables (``MemTable``) as they
  arrive, the tables at once (``parallel_load``: nothing is copied, a table is registered
  when its last batch came); the checkpoint step splits each table into ``target_partitions``
  partitions of equal size (zero-copy slices) for DataFusion's parallel scans.
* **Queries**: DataFusion's SQL, the DuckDB dialect's differences; Q15's view is a
  ``CREATE VIEW`` in the shared context (named per stream and run).
* **Refresh functions**: copy-on-write table swaps (:mod:`.inprocess`): RF1 adds the new
  rows' batches, RF2 filters the batches holding the deleted keys with Arrow compute; both
  tables are swapped in at once under the lock queries are planned under, so a query sees an
  update set entirely or not at all, and never waits for a refresh's compute. (DataFusion 55
  runs ``INSERT``/``DELETE`` on memory tables too, but in place: a query running alongside
  would see orders without their line items.)
* **Streams**: threads sharing the context; DataFusion executes a query outside Python's
  lock, so streams run concurrently on its own thread pool.
* No cancel: the Python bindings cannot stop a running query from another thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import datafusion
import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.inprocess import (
    MemoryEngine,
    MemorySession,
    balanced,
    check_in_memory_url,
    collect_batches,
    empty_batch,
    without_keys,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="datafusion",
    url_form="datafusion:// (in memory) | datafusion://?target_partitions=N",
    requires=("datafusion",),
)

SETTING_PREFIX = "datafusion."
_DISCLOSED = (
    "datafusion.execution.target_partitions",
    "datafusion.execution.batch_size",
    "datafusion.optimizer.prefer_hash_join",
)


@dataclass(frozen=True)
class DataFusionOptions(EngineOptions):
    """The kit's options; those starting with ``datafusion.`` are DataFusion settings."""

    target_partitions: int = 0  # 0: DataFusion's default (one per CPU)


class DataFusionSession(MemorySession["DataFusionEngine"]):
    """A stream's handle on the shared context (DataFusion has no connections)."""

    def execute(self, sql: str) -> None:
        """DDL (Q15's view) and DML run whole under the table lock."""
        with self.policy.guard("statement"), self.engine.tables_lock:
            self.engine.ctx.sql(sql).collect()

    def query(self, sql: str) -> QueryOutput:
        """Planned under the table lock (the plan holds the tables it read), run without it."""
        with self.policy.guard("query"):
            with self.engine.tables_lock:
                frame = self.engine.ctx.sql(sql)
            result = frame.to_arrow_table()
        return QueryOutput(result.column_names, _rows(result))

    def explain(self, sql: str, analyze: bool = False) -> str:
        """``EXPLAIN [ANALYZE]``: ``(plan_type, plan)`` rows, each plan under its type."""
        out = self.query(("EXPLAIN ANALYZE " if analyze else "EXPLAIN ") + sql)
        return "\n".join(f"{kind}:\n{str(plan).rstrip()}" for kind, plan in out.rows)


class DataFusionEngine(MemoryEngine[list[list[pa.RecordBatch]]]):
    name: ClassVar[str] = "datafusion"
    dialect: ClassVar[str] = "datafusion"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,  # a table's batches are only kept: every table at once
        cancel=False,  # the Python bindings cannot stop a running query
        storage_size=False,  # in memory
    )
    facts: ClassVar[EngineFacts] = EngineFacts(
        transactional=False,  # no multi-statement transactions
        bytes_per_sf=None,  # nothing on disk
        display_name="Apache DataFusion",
    )
    streams_method: ClassVar[str] = (
        "threads sharing one SessionContext; DataFusion runs each query "
        "outside Python's lock on its own threads"
    )
    q15_method: ClassVar[str] = "CREATE VIEW in the session context"

    def __init__(self, url: EngineURL) -> None:
        super().__init__(url)
        options = DataFusionOptions.from_url(url)
        self.refresh_batch = options.refresh_batch
        self.policy = ErrorPolicy(url, (Exception,))
        settings = DataFusionOptions.driver_options(url)
        unknown = [k for k in settings if not k.startswith(SETTING_PREFIX)]
        if unknown:
            raise DriversError(
                f"unknown datafusion option {unknown[0]!r}: the kit's are "
                f"{', '.join(DataFusionOptions.names())}; DataFusion's start with "
                f"{SETTING_PREFIX!r}"
            )
        with self.policy.guard("connect"):
            config = datafusion.SessionConfig().with_information_schema(True)
            if options.target_partitions:
                config = config.with_target_partitions(options.target_partitions)
            for key, value in settings.items():
                config = config.set(key, value)
            self.ctx = datafusion.SessionContext(config)
            self.partition_count = int(self._setting(_DISCLOSED[0]))

    def _setting(self, name: str) -> str:
        sql = f"SELECT value FROM information_schema.df_settings WHERE name = '{name}'"
        values = self.ctx.sql(sql).to_pydict()["value"]
        return str(values[0]) if values else ""

    # -- tables ---------------------------------------------------------------------------
    def session(self) -> DataFusionSession:
        return DataFusionSession(self)

    def register(self, table: str, parts: list[list[pa.RecordBatch]]) -> None:
        """Replace a table's data (the caller holds the table lock)."""
        parts = [p for p in parts if p] or [[empty_batch(table)]]
        if self.ctx.table_exist(table):
            self.ctx.deregister_table(table)
        self.ctx.register_record_batches(table, parts)

    def partitions(self, table: str) -> list[list[pa.RecordBatch]]:
        """A table's current batches, partition by partition (the arrays, not copies)."""
        parts: list[list[pa.RecordBatch]] = self.ctx.table(table).collect_partitioned()
        return parts

    def appended(self, table: str, rows: pa.Table) -> list[list[pa.RecordBatch]]:
        """The new rows' batches join the table's smallest partition."""
        parts = self.partitions(table)
        batches = rows.cast(TABLES[table].arrow_schema).to_batches()
        if not parts:
            return [batches]
        smallest = min(range(len(parts)), key=lambda i: sum(b.num_rows for b in parts[i]))
        parts[smallest] = [*parts[smallest], *batches]
        return parts

    def filtered(
        self, table: str, column: str, keys: pa.Array
    ) -> tuple[list[list[pa.RecordBatch]], int]:
        """Each partition's batches without the keys' rows (batches without any kept whole)."""
        parts, removed = [], 0
        for part in self.partitions(table):
            kept, found = without_keys(part, column, keys)
            parts.append(kept)
            removed += found
        return parts, removed

    def swap(self, new: dict[str, list[list[pa.RecordBatch]]]) -> None:
        with self.tables_lock:
            for table, parts in new.items():
                self.register(table, parts)

    def create_schema(self) -> None:
        """The eight tables, empty; the bookkeeping cleared."""
        with self.policy.guard("create schema"), self.tables_lock:
            for table in TABLES:
                self.register(table, [])
        self.clear_state()

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        with self.policy.guard(f"load {table}"):
            data = collect_batches(table, batches)
            with self.tables_lock:
                self.register(table, [data])
        return sum(b.num_rows for b in data)

    def finish_load(self) -> dict[str, float]:
        """Checkpoint: each table in ``target_partitions`` partitions of equal size."""
        start = time.perf_counter()
        with self.policy.guard("checkpoint"), self.tables_lock:
            for table in TABLES:
                batches = [b for part in self.partitions(table) for b in part]
                self.register(table, balanced(batches, self.partition_count))
        return {"checkpoint": time.perf_counter() - start}

    def row_counts(self) -> dict[str, int]:
        sql = " UNION ALL ".join(f"SELECT '{t}' AS t, COUNT(*) AS n FROM {t}" for t in TABLES)
        counts = {str(t): int(n) for t, n in self.session().query(sql).rows}
        return {t: counts[t] for t in TABLES}

    # -- disclosure -------------------------------------------------------------------------
    def version(self) -> str:
        """``DataFusion 55.0.0``: the product first, so that a report labels the database with
        it alone (not ``datafusion Apache DataFusion ...``); ``display_name`` says Apache."""
        return f"DataFusion {datafusion.__version__}"

    def own_settings(self) -> dict[str, str]:
        with self.policy.guard("settings"):
            return {name: self._setting(name) for name in _DISCLOSED}

    def close(self) -> None:
        with self.tables_lock:
            for table in TABLES:
                if self.ctx.table_exist(table):
                    self.ctx.deregister_table(table)


def _rows(result: pa.Table) -> list[tuple[Any, ...]]:
    columns = [result.column(i).to_pylist() for i in range(result.num_columns)]
    return list(zip(*columns, strict=True))


def connect(url: EngineURL) -> DataFusionEngine:
    """The registry's entry point for ``datafusion`` URLs (in memory only)."""
    check_in_memory_url(url, "datafusion:// or datafusion://?target_partitions=4")
    return DataFusionEngine(url)
