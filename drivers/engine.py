"""The engine surface the sequencer relies on: small, declared, the same for every engine.

An engine is built from a URL (``duckdb:///path.db``, ``postgresql://...``, any SQLAlchemy
URL). It hands out :class:`Session` objects, one per query stream or refresh stream, each on
its own connection. Optional abilities are declared in :class:`Capabilities`, never guessed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa

from dbbench.dbgen.progress import Summary
from dbbench.dbgen.writer import GenOptions

if TYPE_CHECKING:  # the loader imports this module
    from dbbench.drivers.loader import TableSource

#: Keys of the bookkeeping every engine keeps in its ``dbbench_state`` table
#: (:meth:`Engine.read_state`); the loader writes them, the sequencer advances the update set.
STATE_SCALE_FACTOR = "scale_factor"
STATE_NEXT_UPDATE_SET = "next_update_set"  # the first update set no RF pair has used yet
STATE_LOAD_SECONDS = "load_seconds"
STATE_LOADED_AT = "loaded_at"  # ISO 8601, UTC
STATE_KIT_VERSION = "kit_version"
#: "N rf1" while update set N's RF1 may be partly committed, "N rf2" once RF1 completed and
#: until RF2 has; empty between pairs. A run finding it set repairs the pair by key.
STATE_REFRESH_PENDING = "refresh_pending"
#: LINEITEM's exact row count between pairs (RF1 and RF2 change it by different amounts).
STATE_LINEITEM_ROWS = "lineitem_rows"
#: "<token> <runs> <streams>" of the benchmark that last ran queries: the Q15 views it may
#: have left behind when it was stopped are ``revenue<s>_r<run>_<token>``.
STATE_Q15_VIEWS = "q15_views"


@dataclass(frozen=True)
class EngineSpec:
    """An engine's declaration: ``ENGINE = EngineSpec(...)`` at the top of its module.

    The registry reads it from the module's source without importing the module (so
    ``dbbench engines`` can describe an engine whose driver is not installed); write it with
    keyword arguments and literal values only. ``module`` is filled in by the registry.
    """

    name: str  # also the URL scheme it serves
    url_form: str  # the URL form users type, for ``dbbench engines``
    requires: tuple[str, ...]  # importable modules (the Python drivers)
    install: str  # the exact command that installs them
    schemes: tuple[str, ...] = ()  # URL schemes served, besides ``name`` itself
    module: str = ""


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do beyond the base surface; each field is read by the kit."""

    parallel_load: bool = False  # tables may be loaded concurrently on separate connections
    cancel: bool = False  # a running statement can be cancelled from another thread
    storage_size: bool = False  # can report the database's size on disk
    distributed_generation: bool = False  # generates the tables on its own workers


@dataclass(frozen=True)
class QueryOutput:
    """Everything a query returned: column names and all rows, fetched to the last one."""

    columns: list[str]
    rows: list[tuple[Any, ...]]


class Session(ABC):
    """One connection. Query streams and the refresh stream each get their own."""

    @abstractmethod
    def execute(self, sql: str) -> None:
        """Run a statement that returns no rows (DDL, a view for Q15)."""

    @abstractmethod
    def query(self, sql: str) -> QueryOutput:
        """Run a statement and fetch every row (the spec times to the last row)."""

    @abstractmethod
    def refresh_insert(self, orders: pa.Table, lineitem: pa.Table) -> int:
        """RF1: insert new orders with their line items, each order and its lines in one
        transaction (batches of orders per transaction are allowed). Returns rows inserted."""

    @abstractmethod
    def refresh_delete(self, orderkeys: Sequence[int]) -> int:
        """RF2: delete orders and their line items, each order with its lines in one
        transaction. Returns rows deleted."""

    def cancel(self) -> None:  # noqa: B027 - optional ability, see Capabilities.cancel
        """Cancel the statement running on this session from another thread."""

    @abstractmethod
    def close(self) -> None: ...


class Engine(ABC):
    """A database under test."""

    name: ClassVar[str]
    dialect: ClassVar[str]  # a queries dialect name: duckdb, postgresql, mysql, sqlite, ansi
    capabilities: ClassVar[Capabilities]

    @abstractmethod
    def session(self) -> Session:
        """Open a new connection."""

    @abstractmethod
    def create_schema(self) -> None:
        """Drop and create the eight tables (no keys yet; those come after the load)."""

    @abstractmethod
    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """Bulk-load one table from Arrow batches as they are generated. Returns rows."""

    def generate_table(self, table: str, sf: float, source: TableSource) -> int:
        """Where :attr:`Capabilities.distributed_generation`: run ``source`` (a picklable
        :class:`~dbbench.drivers.loader.TableSource`) on the engine's own workers and
        store the table there, no row passing through this process. Returns rows."""
        raise NotImplementedError(f"{self.name} does not generate data itself")

    def generate_files(self, options: GenOptions) -> Summary:
        """Where :attr:`Capabilities.distributed_generation`: ``dbbench gen`` run as the
        engine's own tasks, writing the same files into a folder its workers share."""
        raise NotImplementedError(f"{self.name} does not generate files itself")

    @abstractmethod
    def finish_load(self) -> dict[str, float]:
        """Primary and foreign keys, indexes the spec allows, statistics. Returns the seconds
        each step took, e.g. ``{"keys": 1.2, "analyze": 0.4}``."""

    @abstractmethod
    def row_counts(self) -> dict[str, int]:
        """Rows per table, for checking a reused database."""

    @abstractmethod
    def read_state(self) -> dict[str, str]:
        """The kit's bookkeeping stored in the database itself (scale factor, next update
        set, ...); empty when the database was never loaded by dbbench."""

    @abstractmethod
    def write_state(self, values: dict[str, str]) -> None:
        """Persist bookkeeping values (committed before this returns)."""

    @abstractmethod
    def version(self) -> str: ...

    def settings(self) -> dict[str, str]:
        """Engine settings worth disclosing in the report."""
        return {}

    def storage_bytes(self) -> int | None:
        """Database size on disk, where :attr:`Capabilities.storage_size`."""
        return None

    def lock_benchmark(self) -> None:
        """Hold, until :meth:`close`, a lock in the database that keeps a second benchmark
        off it; raise :class:`DriversError` naming the holder when another one has it.
        Engines without such a lock do nothing (DuckDB locks its file by itself)."""
        return None

    @abstractmethod
    def close(self) -> None: ...
