"""The engine surface the sequencer relies on: small, declared, the same for every engine.

An engine is built from a URL (``duckdb:///path.db``, ``postgresql://...``, any SQLAlchemy
URL). It hands out :class:`Session` objects, one per query stream or refresh stream, each on
its own connection. Optional abilities are declared in :class:`Capabilities`, never
guessed; operations only some engines have are capability mixins (:class:`GeneratesData`),
checked with ``isinstance``. What the kit knows about an engine (telemetry counters, free
connections, server processes, transactions, bytes per SF, preflight rules, its product
name) is its :class:`EngineFacts`, declared in the engine's own module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import pyarrow as pa

from dbbench.dbgen.progress import Summary
from dbbench.dbgen.writer import GenOptions
from dbbench.drivers.url import EngineURL

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
#: Order keys from this one up are another workload's (o2c's own orders in ORDERS and
#: LINEITEM, above every TPC-H and refresh-function key); empty or absent: none
#: (:mod:`drivers.workload_rows`). The workload writes it; the TPC-H core only reads it.
STATE_WORKLOAD_KEYS_FROM = "workload_keys_from"


class TableSource(Protocol):
    """Where the loaded rows come from: the two functions of :mod:`dbgen.api` it uses.

    Worker processes receive the source itself, so an instance must pickle (an object of a
    class defined at the top level of an importable module)."""

    def row_count(self, table: str, sf: float) -> int:
        """Rows of ``table`` at ``sf``; raises the generator's error for a bad ``sf``."""
        ...

    def table_batches(
        self, table: str, sf: float, *, part: int = 1, parts: int = 1
    ) -> Iterator[pa.RecordBatch]:
        """Part ``part`` of ``parts`` of ``table`` (dbgen's ``-C/-S`` chunks) as batches."""
        ...


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
    #: the exact command that installs them; by default the kit's extra named after the
    #: engine (``pyproject.toml`` has one per built-in engine)
    install: str = ""
    schemes: tuple[str, ...] = ()  # URL schemes served, besides ``name`` itself
    module: str = ""

    def __post_init__(self) -> None:
        if not self.install:
            object.__setattr__(self, "install", f"pip install 'dbbench[{self.name}]'")


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do beyond the base surface; each field is read by the kit."""

    parallel_load: bool = False  # tables may be loaded concurrently on separate connections
    cancel: bool = False  # a running statement can be cancelled from another thread
    storage_size: bool = False  # can report the database's size on disk


@runtime_checkable
class ServerIdentity(Protocol):
    """An engine that can name the server it reached (o2c refuses two URLs of one server)."""

    def server_identity(self) -> str: ...


@runtime_checkable
class BackendProcess(Protocol):
    """A session that can name the server process serving it (PostgreSQL's backend pid)."""

    def backend_pid(self) -> int | None: ...


@runtime_checkable
class BackendThread(Protocol):
    """A session that can name the server's OS thread serving it (MariaDB's)."""

    def backend_thread(self) -> int | None: ...


#: Every optional ability an engine may have, with what it means: the flags of
#: :class:`Capabilities` and :class:`EngineFacts` and the capability classes
#: (:class:`GeneratesData`, :class:`ServerIdentity`) an engine class declares.
#: :func:`engine_abilities` reads an engine's; ``dbbench engines --json`` lists them.
ABILITIES: dict[str, str] = {
    "parallel_load": "tables may be loaded concurrently on separate connections",
    "cancel": "a running statement can be cancelled from another thread",
    "storage_size": "can report the database's size on disk",
    "transactions": "multi-statement transactions with UPDATE and DELETE (o2c, mixed)",
    "secondary_indexes": "CREATE INDEX on a table (o2c's lookup indexes)",
    "telemetry_counters": "the engine's own counters, read by the telemetry sampler",
    "free_connections": "tells its connection limit and use (the o2c pool is sized from it)",
    "server_processes": "a local server's processes are named (telemetry, o2c server CPU)",
    "generates_data": "generates the tables on its own workers (GeneratesData)",
    "server_identity": "names the server it reached (ServerIdentity)",
    "plans_off_gil": "plans a statement without holding the GIL (parallel plan capture)",
    "transactional_ddl": "a CREATE VIEW inside a transaction goes with its ROLLBACK",
    "hammerdb": "HammerDB can drive it",
}


@dataclass(frozen=True)
class Counters:
    """The engine's own counters, read by the telemetry sampler once per sample on a
    session of its own: one cheap query returning one row. Columns named in ``cumulative``
    are ever-growing counters (stored as rates per second), the others levels (as read)."""

    sql: str
    cumulative: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SettingRule:
    """A preflight rule on one captured setting (:meth:`Engine.settings`): the setting is
    too small when it is below ``at_least`` bytes, or below the database's size when
    ``at_least`` is ``"database"``. The warning reads ``"<engine>: <setting> <value>
    <says>"``; ``says`` may name ``{db}`` (the database's size, and whether measured) and
    ``{sf}``. ``from_sf``: only at this scale factor or larger; ``ram_share``: no warning
    once the setting is at least this share of the machine's memory."""

    setting: str
    says: str
    at_least: int | str = "database"
    from_sf: float = 0.0
    ram_share: float | None = None

    def disclosed(self) -> dict[str, Any]:
        """The rule as plain data, as a result records it for its report."""
        return {
            "setting": self.setting,
            "says": self.says,
            "at_least": self.at_least,
            "from_sf": self.from_sf,
            "ram_share": self.ram_share,
        }


@dataclass(frozen=True)
class EngineFacts:
    """What the kit needs to know about an engine beyond its SQL surface, declared once in
    the engine's own module (``facts = EngineFacts(...)``). Code outside
    ``drivers/engines/`` reads these and the hooks of :class:`Engine`; it never switches on
    an engine's name (``tests/test_engine_facts_stay_in_engines.py``)."""

    #: multi-statement transactions with UPDATE and DELETE on the benchmark's tables (o2c,
    #: mixed workloads refuse engines without them)
    transactional: bool = True
    #: CREATE INDEX on a table (o2c's lookup indexes on its own tables, for speed only: the
    #: dialog steps are correct without them); Hyper: "Index support is disabled"
    secondary_indexes: bool = True
    #: bytes a loaded database takes per unit of scale factor (tables and keys, measured at
    #: SF 1 on this kit): the space check before a load into a local file, the preflight
    #: estimate of the database's size; None: unknown
    bytes_per_sf: float | None = None
    #: names of a local server's processes (telemetry, the o2c server CPU); () embedded
    server_processes: tuple[str, ...] = ()
    #: an engine in this process that plans a statement without holding the GIL (DuckDB):
    #: the plan capture spreads its EXPLAINs over one session per core; False: one session
    plans_off_gil: bool = False
    #: a CREATE VIEW inside a transaction goes with its ROLLBACK (transactional DDL): the
    #: plan capture sets Q15's view up in a transaction it rolls back instead of committing
    #: a CREATE and a DROP (DuckDB: no write-ahead log sync for either)
    transactional_ddl: bool = False
    #: the product's name in exports and reports ("PostgreSQL"); "" the engine's name
    display_name: str = ""
    #: HammerDB's name of this database (its ``dbset db``: "pg", "mysql"); "" HammerDB
    #: cannot drive it (a MySQL-protocol server that says MariaDB is HammerDB's "maria")
    hammerdb_db: str = ""
    #: the statement that opens a write transaction (SQLite: ``BEGIN IMMEDIATE``, which
    #: queues for the write lock at the start instead of failing at the first write)
    begin: str = "BEGIN"
    #: the clause after a SELECT that locks the rows it reads until the transaction ends
    #: (" FOR UPDATE"): the ACID Transaction's reads (``dbbench acid``); "" where a
    #: transaction is serializable already or the engine has none (DuckDB, SQLite)
    lock_read: str = ""
    #: what the telemetry sampler reads from the engine itself; None: nothing cheap
    counters: Counters | None = None
    #: one row ``(max connections, reserved, in use)`` of a server (the o2c pool is sized
    #: from it); None: no connection limit to respect (embedded)
    connections_sql: str | None = None
    #: the preflight rules on the engine's captured settings (``dbbench preflight``)
    preflight: tuple[SettingRule, ...] = ()

    def preflight_facts(self) -> dict[str, Any]:
        """What the preflight of a result needs, as plain data (``reports.tpch.fairness`` reads
        it; reports import no engine)."""
        return {
            "bytes_per_sf": self.bytes_per_sf,
            "rules": [rule.disclosed() for rule in self.preflight],
        }


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

    def explain(self, sql: str, analyze: bool = False) -> str:
        """The engine's plan of the query ``sql`` as text: its EXPLAIN, or with ``analyze``
        the plan as executed (the query runs). Never called inside a timed interval; a
        failure is recorded for that plan only (plans are not measurements). The shared SQL
        layer (``engines.common.SqlSession``) sends ``EXPLAIN <sql>``; an engine whose
        syntax differs overrides it in its own module."""
        raise NotImplementedError(f"{type(self).__name__} cannot explain a query")

    @abstractmethod
    def close(self) -> None: ...


class Engine(ABC):
    """A database under test."""

    name: ClassVar[str]
    dialect: ClassVar[str]  # a queries dialect name: duckdb, postgresql, mysql, sqlite, ansi
    capabilities: ClassVar[Capabilities]
    facts: ClassVar[EngineFacts] = EngineFacts()

    @abstractmethod
    def session(self) -> Session:
        """Open a new connection."""

    @abstractmethod
    def create_schema(self) -> None:
        """Drop and create the eight tables (no keys yet; those come after the load)."""

    @abstractmethod
    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """Bulk-load one table from Arrow batches as they are generated. Returns rows."""

    @abstractmethod
    def finish_load(self) -> dict[str, float]:
        """Primary and foreign keys, indexes the spec allows, statistics. Returns the seconds
        each step took, e.g. ``{"keys": 1.2, "analyze": 0.4}``."""

    @abstractmethod
    def row_counts(self) -> dict[str, int]:
        """Rows per table, for checking a reused database."""

    def auxiliary_structures(self) -> list[str]:
        """The keys, indexes and views the catalog lists on the eight tables, one line each
        (the disclosure compares them after the load and after the test); empty for an
        engine without a catalog to ask."""
        return []

    def orphan_counts(self) -> dict[str, int]:
        """Per foreign key, the rows whose key has no parent, counted where the engine
        declares no such constraint (the disclosure's referential integrity); empty when the
        constraints are declared (the engine checked every row) or it cannot count."""
        return {}

    def ddl_statements(self) -> list[str]:
        """The DDL this engine executes for the eight tables (CREATE TABLE, keys, indexes),
        for the disclosure (``dbbench disclose``); empty for an engine with none to show."""
        return []

    @classmethod
    def in_run_dir(cls, url: EngineURL, folder: Path) -> EngineURL:
        """The URL a run in ``folder`` uses: an engine whose data goes to a default place in
        the working folder when the URL names none (Spark's ``spark-warehouse``) puts it
        in the run directory instead; any other URL as given."""
        return url

    def place(self) -> str | None:
        """Where the engine writes, as the server reached says it (a URL with no host or
        database leaves them to the driver's defaults: ``postgresql://`` is libpq's socket,
        the OS user and a database of that name); None for an engine that writes a file
        or memory the URL names."""
        return None

    def foreign_tables(self) -> list[str]:
        """Tables in the database that dbbench did not create (a load refuses to write
        beside them unless forced); empty when the engine cannot tell."""
        return []

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

    def reopen(self) -> bool:
        """Close the database and open it again, so that the next query starts cold (an
        embedded file database: its buffer pool is gone). Sessions opened before are
        closed. False where the kit cannot: a server it did not start, an in-memory
        database whose tables would be lost (a study then says "warm only"). A benchmark
        lock the reopen ended is not taken again here: the caller does that
        (:func:`drivers.lifecycle.relock`), as only the lifecycle takes locks."""
        return False

    def lock_benchmark(self) -> None:
        """Hold, until :meth:`close`, a lock in the database that keeps a second benchmark
        off it; raise :class:`DriversError` naming the holder when another one has it.
        Engines without such a lock do nothing (DuckDB locks its file by itself)."""
        return None

    @abstractmethod
    def close(self) -> None: ...


class GeneratesData(ABC):
    """Capability mixin of an engine that runs the generator on its own workers (Spark
    tasks): the loader gives it no batches and ``dbbench gen --engine`` runs there. Callers
    check ``isinstance(engine, GeneratesData)``."""

    @abstractmethod
    def generate_table(self, table: str, sf: float, source: TableSource) -> int:
        """Run ``source`` (a picklable :class:`TableSource`) on the
        engine's own workers and store the table there, no row passing through this process.
        Returns rows."""

    @abstractmethod
    def generate_files(self, options: GenOptions) -> Summary:
        """``dbbench gen`` run as the engine's own tasks, writing the same files into a
        folder its workers share."""


def engine_abilities(cls: type[Engine]) -> list[str]:
    """The abilities (names of :data:`ABILITIES`) an engine class declares, in that order."""
    caps, facts = cls.capabilities, cls.facts
    has = {
        "parallel_load": caps.parallel_load,
        "cancel": caps.cancel,
        "storage_size": caps.storage_size,
        "transactions": facts.transactional,
        "secondary_indexes": facts.secondary_indexes,
        "telemetry_counters": facts.counters is not None,
        "free_connections": facts.connections_sql is not None,
        "server_processes": bool(facts.server_processes),
        "generates_data": issubclass(cls, GeneratesData),
        "server_identity": issubclass(cls, ServerIdentity),
        "plans_off_gil": facts.plans_off_gil,
        "transactional_ddl": facts.transactional_ddl,
        "hammerdb": bool(facts.hammerdb_db),
    }
    assert has.keys() == ABILITIES.keys()
    return [name for name in ABILITIES if has[name]]
