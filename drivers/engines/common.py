"""What every SQL engine does the same way: sessions over DB-API connections, refresh
functions in transactions, bookkeeping, keys after the load, and turning driver errors into
one-line :class:`~drivers.errors.DriversError` messages that never carry a password.

Engines (``duckdb.py``, ``postgresql.py``, ``sqlalchemy.py``, ...) override the few hooks
where they have something faster (DuckDB's Arrow scans, PostgreSQL's COPY).
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa

from dbbench.dbgen.schema import TABLES
from dbbench.drivers import ddl
from dbbench.drivers.engine import Engine, QueryOutput, Session
from dbbench.drivers.errors import (
    ConnectionLostError,
    DriversError,
    QueryCancelledError,
    one_line,
)
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, is_secret_option


def _secrets(url: EngineURL) -> list[str]:
    """What an error message must never show: the password and password-like options."""
    return [url.password or "", *(v for k, v in url.query.items() if is_secret_option(k))]


class ErrorPolicy:
    """Which driver exceptions exist and what they mean, per engine."""

    def __init__(
        self,
        url: EngineURL,
        errors: tuple[type[BaseException], ...],
        lost: Callable[[BaseException], bool] = lambda e: False,
        cancelled: Callable[[BaseException], bool] = lambda e: False,
    ) -> None:
        self.url = url
        self.errors = errors
        self.lost = lost
        self.cancelled = cancelled

    @contextmanager
    def guard(self, what: str) -> Iterator[None]:
        """Turn a driver exception into the right :class:`DriversError` subclass."""
        try:
            yield
        except DriversError:
            raise
        except self.errors as exc:
            where = f"{self.url.scheme} ({self.url.render()})"
            message = f"{what} failed on {where}: {one_line(exc, secrets=_secrets(self.url))}"
            if self.cancelled(exc):
                raise QueryCancelledError(message) from exc
            if self.lost(exc):
                raise ConnectionLostError(message) from exc
            raise DriversError(message) from exc


def split_orders(
    orders: pa.Table, lineitem: pa.Table, per_batch: int
) -> Iterator[tuple[pa.Table, pa.Table]]:
    """Groups of whole orders with exactly their line items (the RF1 transaction unit)."""
    orders = orders.sort_by("o_orderkey")
    lineitem = lineitem.sort_by([("l_orderkey", "ascending"), ("l_linenumber", "ascending")])
    okeys = orders.column("o_orderkey").to_numpy()
    lkeys = lineitem.column("l_orderkey").to_numpy()
    for start in range(0, len(okeys), per_batch):
        stop = min(start + per_batch, len(okeys))
        lo = int(np.searchsorted(lkeys, okeys[start], side="left"))
        hi = int(np.searchsorted(lkeys, okeys[stop - 1], side="right"))
        yield orders.slice(start, stop - start), lineitem.slice(lo, hi - lo)


def key_chunks(orderkeys: Sequence[int], per_batch: int) -> Iterator[list[int]]:
    keys = np.asarray(orderkeys, dtype=np.int64)
    for start in range(0, len(keys), per_batch):
        yield keys[start : start + per_batch].tolist()


def wait_for(futures: Iterable[Future[Any]], *, step: float = 0.1) -> None:
    """Wait until every future is done, in short steps: the main thread then handles a
    signal at once (one caught by another thread runs its handler only when the main thread
    wakes), and Ctrl-C never breaks into a thread join half-way."""
    pending = set(futures)
    while pending:
        _, pending = wait(pending, timeout=step)


class SharedStream:
    """One batch stream shared by several loading connections: counts rows and keeps the
    generator's exception (an engine pulling the stream would only pass on its text)."""

    def __init__(self, batches: Iterable[pa.RecordBatch]) -> None:
        self._source = batches
        self._batches = iter(batches)
        self._lock = threading.Lock()
        self.rows = 0
        self.failure: Exception | None = None
        self._stopped = False

    def stop(self) -> None:
        """Make every consumer's next pull fail (Ctrl-C: the loaders must end before their
        connections are closed); a source with a ``stop()`` of its own (the loader's feed,
        which may be waiting on its workers) is told too."""
        self._stopped = True
        stop = getattr(self._source, "stop", None)
        if callable(stop):
            stop()

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        while True:
            with self._lock:
                if self.failure is not None:
                    return
                if self._stopped:
                    raise DriversError("the load was stopped")
                try:
                    batch = next(self._batches, None)
                except Exception as exc:
                    self.failure = exc
                    raise
                if batch is None:
                    return
                if self._stopped:
                    raise DriversError("the load was stopped")
                self.rows += batch.num_rows
            yield batch


class SqlSession(Session):
    """A session over one autocommit DB-API connection; transactions are explicit SQL."""

    def __init__(self, engine: SqlEngine, conn: Any) -> None:
        self.engine = engine
        self.conn = conn
        self.policy = engine.policy

    def cursor(self) -> Any:
        return self.conn.cursor()

    def execute(self, sql: str) -> None:
        with self.policy.guard("statement"):
            cur = self.cursor()
            cur.execute(sql)

    def query(self, sql: str) -> QueryOutput:
        with self.policy.guard("query"):
            cur = self.cursor()
            cur.execute(sql)
            columns = [d[0] for d in cur.description or ()]
            rows = [tuple(r) for r in cur.fetchall()]
        return QueryOutput(columns, rows)

    def explain(self, sql: str, analyze: bool = False) -> str:
        """``EXPLAIN [ANALYZE] <sql>``; engines whose syntax differs override
        :meth:`explain_sql`, and :meth:`plan_from` where their answer is not plan lines."""
        return self.plan_from(self.query(self.explain_sql(sql, analyze)))

    def explain_sql(self, sql: str, analyze: bool) -> str:
        return ("EXPLAIN ANALYZE " if analyze else "EXPLAIN ") + sql

    def plan_from(self, out: QueryOutput) -> str:
        return plan_text(out)

    def refresh_insert(self, orders: pa.Table, lineitem: pa.Table) -> int:
        inserted = 0
        with self.policy.guard("RF1"):
            for o_part, l_part in split_orders(orders, lineitem, self.engine.refresh_batch):
                with self.transaction():
                    self.insert_rows("orders", o_part)
                    self.insert_rows("lineitem", l_part)
                inserted += o_part.num_rows + l_part.num_rows
        return inserted

    def refresh_delete(self, orderkeys: Sequence[int]) -> int:
        deleted = 0
        with self.policy.guard("RF2"):
            for keys in key_chunks(orderkeys, self.engine.refresh_batch):
                with self.transaction():
                    deleted += self.delete_keys("lineitem", "l_orderkey", keys)
                    deleted += self.delete_keys("orders", "o_orderkey", keys)
        return deleted

    @contextmanager
    def transaction(self) -> Iterator[None]:
        cur = self.cursor()
        cur.execute(self.engine.begin_sql)
        try:
            yield
        except BaseException:
            self._rollback_quietly()
            raise
        cur.execute("COMMIT")

    def _rollback_quietly(self) -> None:
        with suppress(Exception):  # the connection may be gone; the first error matters
            self.cursor().execute("ROLLBACK")

    def insert_rows(self, table: str, data: pa.Table) -> None:
        """Generic path: executemany from per-column Python lists (no per-row logic)."""
        if data.num_rows == 0:
            return
        cols = [self.engine.python_column(c) for c in data.columns]
        marks = ", ".join(self.engine.placeholder(i) for i in range(len(cols)))
        sql = f"INSERT INTO {table} ({', '.join(data.column_names)}) VALUES ({marks})"
        self.cursor().executemany(sql, list(zip(*cols, strict=True)))

    def delete_keys(self, table: str, column: str, keys: list[int]) -> int:
        """Keys are integers, so an inline IN list is safe and portable."""
        cur = self.cursor()
        cur.execute(f"DELETE FROM {table} WHERE {column} IN ({', '.join(map(str, keys))})")
        return int(cur.rowcount)

    def close(self) -> None:
        with suppress(Exception):  # closing a broken connection must not mask the cause
            self.conn.close()


@dataclass(frozen=True)
class DisclosedSettings:
    """The server settings a report discloses: ``sql`` returns (name, value) rows for the
    names in ``{names}`` (:meth:`SqlEngine.settings_from`), ``names`` lists them."""

    sql: str
    names: tuple[str, ...]


class SqlEngine(Engine):
    """Schema, bookkeeping and statistics shared by the SQL engines."""

    ddl_rules: ddl.DdlRules = ddl.ANSI
    begin_sql: ClassVar[str] = "BEGIN"
    statistics_step: ClassVar[str] = "analyze"  # the name of finish_load's last step
    #: The server settings a report discloses (none: the engine's own :meth:`settings`)
    disclosed: ClassVar[DisclosedSettings | None] = None
    #: The query that lists the engine's indexes as (name, table) rows; "" when it has none
    #: to list (the disclosure's auxiliary structures, :meth:`auxiliary_structures`).
    indexes_sql: ClassVar[str] = ""
    #: The query that lists the user's views as (name,) rows.
    views_sql: ClassVar[str] = (
        "SELECT table_name FROM information_schema.views WHERE table_schema "
        "NOT IN ('information_schema', 'pg_catalog')"
    )

    def __init__(self, url: EngineURL, policy: ErrorPolicy, options: EngineOptions) -> None:
        self.url = url
        self.policy = policy
        self.refresh_batch = options.refresh_batch
        self.keys = True  # primary and foreign keys after the load (engines may turn off)
        self.indexes = False  # the allowed secondary indexes (engines that use them)

    # -- hooks ------------------------------------------------------------------------
    @abstractmethod
    def admin(self) -> SqlSession:
        """The engine's own connection for DDL, state and counts (opened once)."""

    def placeholder(self, index: int) -> str:
        return "?"

    def python_column(self, column: pa.ChunkedArray) -> list[Any]:
        return column.to_pylist()  # type: ignore[no-any-return]

    def analyze_sql(self) -> list[str]:
        return ["ANALYZE"]

    # -- the Engine surface -------------------------------------------------------------
    def create_schema(self) -> None:
        admin = self.admin()
        with self.policy.guard("create schema"):
            cur = admin.cursor()
            for table in ddl.drop_order():
                cur.execute(ddl.drop_table(table))
            for table in TABLES:
                cur.execute(ddl.create_table(table, self.ddl_rules, keys=self.keys))
            cur.execute(ddl.create_state_table())
            cur.execute(f"DELETE FROM {ddl.STATE_TABLE}")

    def finish_load(self) -> dict[str, float]:
        steps: dict[str, float] = {}
        admin = self.admin()
        with self.policy.guard("finish load"):
            cur = admin.cursor()
            if self.keys and not self.ddl_rules.keys_in_create:
                primary = [ddl.add_primary_key(t) for t in TABLES]
                steps["primary_keys"] = self._timed(cur, primary)
            if self.keys and self.ddl_rules.alter_foreign_keys:
                steps["foreign_keys"] = self._timed(cur, ddl.add_foreign_keys())
            if self.indexes:
                steps["indexes"] = self._timed(cur, ddl.create_indexes())
            steps[self.statistics_step] = self._timed(cur, self.analyze_sql())
        return steps

    def ddl_statements(self) -> list[str]:
        """What :meth:`create_schema` and :meth:`finish_load` execute, in that order."""
        out = [ddl.create_table(t, self.ddl_rules, keys=self.keys) for t in TABLES]
        if self.keys and not self.ddl_rules.keys_in_create:
            out += [ddl.add_primary_key(t) for t in TABLES]
        if self.keys and self.ddl_rules.alter_foreign_keys:
            out += ddl.add_foreign_keys()
        if self.indexes:
            out += ddl.create_indexes()
        return out

    def orphan_counts(self) -> dict[str, int]:
        declared = self.keys and (
            self.ddl_rules.alter_foreign_keys or self.ddl_rules.keys_in_create
        )
        if declared:
            return {}
        return {str(k): int(n) for k, n in self.admin().query(ddl.orphan_counts_sql()).rows}

    def auxiliary_structures(self) -> list[str]:
        """The keys, indexes and views on the eight tables as the catalog lists them."""
        admin = self.admin()
        names = ", ".join(f"'{t}'" for t in TABLES)
        found = [
            f"{kind} {name} ON {table}"
            for table, kind, name in admin.query(
                "SELECT table_name, constraint_type, constraint_name FROM "
                f"information_schema.table_constraints WHERE table_name IN ({names}) "
                "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY', 'UNIQUE')"
            ).rows
        ]
        if self.indexes_sql:
            found += [f"INDEX {n} ON {t}" for n, t in admin.query(self.indexes_sql).rows]
        found += [f"VIEW {name}" for (name,) in admin.query(self.views_sql).rows]
        return sorted(found)

    @staticmethod
    def _timed(cur: Any, statements: list[str]) -> float:
        start = time.perf_counter()
        for sql in statements:
            cur.execute(sql)
        return time.perf_counter() - start

    def row_counts(self) -> dict[str, int]:
        sql = " UNION ALL ".join(f"SELECT '{t}', COUNT(*) FROM {t}" for t in TABLES)
        counts = {str(name): int(n) for name, n in self.admin().query(sql).rows}
        return {t: counts[t] for t in TABLES}

    def read_state(self) -> dict[str, str]:
        sql = f"SELECT state_key, state_value FROM {ddl.STATE_TABLE}"
        try:
            rows = self.admin().query(sql).rows
        except ConnectionLostError:
            raise
        except DriversError:  # never loaded by dbbench: no table yet
            return {}
        return {str(k): str(v) for k, v in rows}

    def write_state(self, values: dict[str, str]) -> None:
        admin = self.admin()
        with self.policy.guard("write state"):
            cur = admin.cursor()
            cur.execute(ddl.create_state_table())
            with admin.transaction():
                for key, value in values.items():
                    k, v = _sql_text(key), _sql_text(value)
                    cur.execute(f"DELETE FROM {ddl.STATE_TABLE} WHERE state_key = {k}")
                    cur.execute(f"INSERT INTO {ddl.STATE_TABLE} VALUES ({k}, {v})")

    def settings(self) -> dict[str, str]:
        """The :attr:`disclosed` settings as the server reports them."""
        if self.disclosed is None:
            return super().settings()
        return self.settings_from(self.disclosed.sql, self.disclosed.names)

    def settings_from(self, sql: str, names: Sequence[str]) -> dict[str, str]:
        """The server's settings ``names``: ``sql`` returns (name, value) rows of those whose
        names are in ``{names}`` (filled with their quoted list); a missing name is left out."""
        listed = ", ".join(_sql_text(n) for n in names)
        with self.policy.guard("settings"):
            rows = self.admin().query(sql.format(names=listed)).rows
        return {str(k): str(v) for k, v in rows}


def _sql_text(value: str) -> str:
    """A string literal; state keys and values are the kit's own short texts."""
    return "'" + str(value).replace("'", "''") + "'"


def plan_text(out: QueryOutput, *, last_column: bool = False) -> str:
    """An EXPLAIN's answer as text: one column (or ``last_column``: the last, e.g. DuckDB's
    ``(explain_key, explain_value)``) as its lines; a table of several columns (MariaDB's)
    as a header line and one line per row, cells separated by `` | ``."""
    if last_column or len(out.columns) == 1:
        return "\n".join(str(row[-1]).rstrip("\n") for row in out.rows if row)
    lines = [" | ".join(out.columns)]
    lines += [" | ".join("" if v is None else str(v) for v in row) for row in out.rows]
    return "\n".join(lines)
