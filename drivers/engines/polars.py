"""Polars (``pl.SQLContext`` over in-memory frames), in this process.

``polars://`` is an empty database: one ``DataFrame`` per table, held by the engine object
(a new process starts empty, so a benchmark run loads it each time). Option:
``streaming=true`` runs queries on Polars' streaming engine instead of its in-memory one.
Polars sizes its thread pool once per process (``POLARS_MAX_THREADS``), disclosed.

* **Load**: the generator's Arrow batches become one frame per table (``pl.from_arrow``,
  zero-copy), the tables at once; the checkpoint step makes every column one contiguous
  chunk (``rechunk``).
* **Queries**: Polars SQL with the DuckDB dialect's differences. Each query gets its own
  ``SQLContext`` over the tables as they are when it is planned (frames are immutable).
  Polars SQL has no views: Q15's ``CREATE VIEW name (columns) AS SELECT ...`` is kept by
  the engine as its text and registered, in every later query's context, as the lazy frame
  of that ``SELECT`` with the view's column names (a view: evaluated inside the query that
  reads it, on that query's tables); ``DROP VIEW`` forgets it.
* **Refresh functions**: copy-on-write frame swaps (:mod:`.inprocess`): RF1 concatenates the
  new rows, RF2 keeps the rows whose key is not deleted (an anti-join filter); orders and
  lineitem are swapped in together under the lock queries are planned under.
* **Streams**: threads; Polars runs a query outside Python's lock on its thread pool, which
  the concurrent streams share. No cancel: Polars' ``InProcessQuery.cancel`` returns at
  once but a running join goes on in its threads.
* Polars SQL has no INSERT, UPDATE or DELETE: statements other than queries and Q15's
  views are refused in one line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import polars as pl
import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.engines.inprocess import (
    MemoryEngine,
    MemorySession,
    check_in_memory_url,
    collect_batches,
)
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="polars",
    url_form="polars:// (in memory) | polars://?streaming=true",
    requires=("polars",),
)

_CREATE_VIEW = re.compile(
    r"\s*create\s+view\s+(?P<name>\w+)\s*(?:\((?P<columns>[^)]*)\))?\s+as\s+(?P<body>.+?)\s*;?\s*",
    re.I | re.S,
)
_DROP_VIEW = re.compile(r"\s*drop\s+view\s+(?P<exists>if\s+exists\s+)?(?P<name>\w+)\s*;?\s*", re.I)
_QUERY = re.compile(r"\s*(?:select|with)\b", re.I)


@dataclass(frozen=True)
class PolarsOptions(EngineOptions):
    streaming: bool = False  # Polars' streaming engine instead of the in-memory one


@dataclass(frozen=True)
class _View:
    columns: tuple[str, ...]
    body: str


class PolarsSession(MemorySession["PolarsEngine"]):
    """A stream's handle on the engine's frames (Polars has no connections)."""

    def execute(self, sql: str) -> None:
        """Q15's view statements; a query's rows are fetched and dropped."""
        with self.policy.guard("statement"):
            if (found := _CREATE_VIEW.fullmatch(sql)) is not None:
                columns = tuple(c.strip() for c in (found["columns"] or "").split(",") if c.strip())
                self.engine.create_view(found["name"], _View(columns, found["body"]))
            elif (found := _DROP_VIEW.fullmatch(sql)) is not None:
                self.engine.drop_view(found["name"], if_exists=bool(found["exists"]))
            elif _QUERY.match(sql):
                self.query(sql)
            else:
                words = " ".join(sql.split()[:2])
                raise DriversError(
                    f"polars runs queries only (its SQL has no INSERT, UPDATE or DELETE; "
                    f"views are the engine's): {words} ..."
                )

    def query(self, sql: str) -> QueryOutput:
        """Planned on the tables as they are now, then run in Polars' threads."""
        with self.policy.guard("query"):
            result = self.engine.plan(sql).collect(engine=self.engine.collect_engine)
        return QueryOutput(result.columns, result.rows())

    def explain(self, sql: str, analyze: bool = False) -> str:
        """The optimized plan of the query's ``LazyFrame`` (``explain()``). Polars keeps no
        executed plan: ``analyze`` runs it and adds the rows and seconds it took."""
        with self.policy.guard("explain"):
            frame = self.engine.plan(sql)
            text = frame.explain()
            if analyze:
                start = time.perf_counter()
                rows = frame.collect(engine=self.engine.collect_engine).height
                text += f"\nexecuted: {rows} rows in {time.perf_counter() - start:.3f} s"
        return text


class PolarsEngine(MemoryEngine[pl.DataFrame]):
    name: ClassVar[str] = "polars"
    dialect: ClassVar[str] = "polars"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,  # a table's batches are only wrapped: every table at once
        # measured: InProcessQuery.cancel() returns at once, but a running join goes on in
        # Polars' threads (26-40 s at SF 0.01) and holds the pool the next query needs
        cancel=False,
        storage_size=False,  # in memory
    )
    facts: ClassVar[EngineFacts] = EngineFacts(
        transactional=False,  # no DML at all in its SQL
        bytes_per_sf=None,
        display_name="Polars",
    )
    streams_method: ClassVar[str] = (
        "threads; Polars runs each query outside Python's lock on its one "
        "thread pool, shared by the streams"
    )
    q15_method: ClassVar[str] = (
        "the view kept by the engine and registered as a lazy frame in each "
        "query's SQLContext (Polars SQL has no views)"
    )

    def __init__(self, url: EngineURL) -> None:
        super().__init__(url)
        options = PolarsOptions.from_url(url)
        unknown = list(PolarsOptions.driver_options(url))
        if unknown:
            raise DriversError(
                f"unknown polars option {unknown[0]!r}: it takes {', '.join(PolarsOptions.names())}"
            )
        self.refresh_batch = options.refresh_batch
        self.streaming = options.streaming
        self.collect_engine: Any = "streaming" if options.streaming else "in-memory"
        self.policy = ErrorPolicy(url, (pl.exceptions.PolarsError, pa.ArrowException))
        self.frames: dict[str, pl.DataFrame] = {}
        self.views: dict[str, _View] = {}

    # -- tables and views ------------------------------------------------------------------
    def session(self) -> PolarsSession:
        return PolarsSession(self)

    def plan(self, sql: str) -> pl.LazyFrame:
        """A query's lazy frame over the tables as they are now and the views it names."""
        with self.tables_lock:
            context = pl.SQLContext({t: f.lazy() for t, f in self.frames.items()})
            for name, view in self.views.items():
                if not re.search(rf"\b{name}\b", sql, re.I):
                    continue  # another stream's view
                frame = context.execute(view.body)
                if view.columns:
                    names = frame.collect_schema().names()
                    if len(names) != len(view.columns):
                        raise DriversError(
                            f"view {name} names {len(view.columns)} columns; its query "
                            f"returns {len(names)}"
                        )
                    frame = frame.rename(dict(zip(names, view.columns, strict=True)))
                context.register(name, frame)
            return context.execute(sql)

    def create_view(self, name: str, view: _View) -> None:
        with self.tables_lock:
            if name.lower() in self.views or name.lower() in self.frames:
                raise DriversError(f"relation {name!r} already exists")
            self.views[name.lower()] = view

    def drop_view(self, name: str, *, if_exists: bool) -> None:
        with self.tables_lock:
            if self.views.pop(name.lower(), None) is None and not if_exists:
                raise DriversError(f"no view named {name!r}")

    def appended(self, table: str, rows: pa.Table) -> pl.DataFrame:
        new = pl.from_arrow(rows.cast(TABLES[table].arrow_schema))
        assert isinstance(new, pl.DataFrame)
        return pl.concat([self.frames[table], new], rechunk=False)

    def filtered(self, table: str, column: str, keys: pa.Array) -> tuple[pl.DataFrame, int]:
        """The frame without the keys' rows (an anti-join filter)."""
        old = self.frames[table]
        kept = old.filter(~pl.col(column).is_in(pl.Series(keys)))
        return kept, old.height - kept.height

    def swap(self, new: dict[str, pl.DataFrame]) -> None:
        with self.tables_lock:
            self.frames.update(new)

    def create_schema(self) -> None:
        empty = {t: _frame(TABLES[t].arrow_schema.empty_table()) for t in TABLES}
        with self.tables_lock:
            self.frames = empty
            self.views.clear()
        self.clear_state()

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        with self.policy.guard(f"load {table}"):
            data = collect_batches(table, batches)
            frame = _frame(pa.Table.from_batches(data, schema=TABLES[table].arrow_schema))
            self.swap({table: frame})
        return frame.height

    def finish_load(self) -> dict[str, float]:
        """Checkpoint: every column of every table one contiguous chunk."""
        start = time.perf_counter()
        with self.policy.guard("checkpoint"), self.tables_lock:
            self.frames = {t: f.rechunk() for t, f in self.frames.items()}
        return {"checkpoint": time.perf_counter() - start}

    def row_counts(self) -> dict[str, int]:
        with self.tables_lock:
            return {t: self.frames[t].height if t in self.frames else 0 for t in TABLES}

    # -- disclosure -------------------------------------------------------------------------
    def version(self) -> str:
        return f"Polars {pl.__version__}"

    def own_settings(self) -> dict[str, str]:
        return {
            "engine": str(self.collect_engine),
            "thread_pool_size": str(pl.thread_pool_size()),
        }

    def close(self) -> None:
        with self.tables_lock:
            self.frames = {}
            self.views.clear()


def _frame(data: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(data)
    assert isinstance(frame, pl.DataFrame)
    return frame


def connect(url: EngineURL) -> PolarsEngine:
    """The registry's entry point for ``polars`` URLs (in memory only)."""
    check_in_memory_url(url, "polars:// or polars://?streaming=true")
    return PolarsEngine(url)
