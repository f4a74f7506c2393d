"""Tableau Hyper through ``tableauhyperapi``: the wheel brings its server, ``hyperd``, which
the engine starts as its own child process for the engine's lifetime.

``hyper:///file.hyper`` (relative) or ``hyper:////abs/file.hyper``; ``hyper`` alone is a
database file in a private temporary folder, removed at close.

* **Load**: Hyper reads bulk data only from files (``COPY ... FROM file``; a named pipe is
  refused), so each table's Arrow batches are written, as generated, into Arrow IPC stream
  files of ``copy_rows`` rows in a private spool (shared memory when it has room, else the
  temporary folder) and each file is copied in as soon as it is complete, then removed. Tables
  load in parallel, each on a connection of its own. Hyper has no indexes ("Index support is
  disabled"), hence no keys; ``ANALYZE`` gathers its statistics.
* **Queries**: dialect ``hyper``; views are disabled in Hyper, so Q15's view is a ``WITH``
  clause (the specification's variant of Q15).
* **Refresh functions**: in transactions (``BEGIN``/``COMMIT``), RF1's rows through the same
  Arrow files and ``COPY``, RF2 by ``DELETE``.
* **Streams** run concurrently, one connection each; the API waits on ``hyperd`` with
  Python's lock released, and ``hyperd`` runs the queries on its own threads.
* **Cancel**: the API's ``Connection.cancel``, from any thread.
* **Server CPU** (o2c): ``hyperd`` serves only this engine's connections, so each session
  names it as the server process serving it (``backend_pid()``, the PID the API's C layer
  reports for the process it started); by name it would not be found (its process calls
  itself ``hyperdMain`` on Linux) nor told apart from another engine's ``hyperd``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa
import tableauhyperapi as hapi

from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.spool import make_spool
from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineFacts, EngineSpec, QueryOutput
from dbbench.drivers.engines.common import ErrorPolicy, SqlEngine, SqlSession
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, check_local

ENGINE = EngineSpec(
    name="hyper",
    url_form="hyper (a temporary file) | hyper:///file.hyper",
    requires=("tableauhyperapi",),
)

#: Arrow strings are Hyper's TEXT (a CHAR(n) column refuses them); no keys (no indexes).
DDL = ddl.DdlRules("hyper", type_name=ddl.varchar_only, alter_foreign_keys=False)

#: Bytes of the database file per unit of scale factor, measured at SF 1 (447.2 MB).
BYTES_PER_SF = 447.2e6

#: The spool's prefix (stale spools of dead processes are removed by the next one).
SPOOL_PREFIX = "dbbench-hyper-"


@dataclass(frozen=True)
class HyperOptions(EngineOptions):
    """The kit's options; every other query option is a ``hyperd`` parameter."""

    copy_rows: int = 2_000_000  # rows per spooled Arrow file handed to one COPY


class _Cursor:
    """What :class:`SqlEngine`'s shared steps call: ``execute`` on the connection."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str) -> None:
        self.conn.execute_command(sql)


class HyperSession(SqlSession):
    """One connection to ``hyperd``."""

    def __init__(self, engine: HyperEngine, conn: Any) -> None:
        super().__init__(engine, conn)
        self.hyper_engine = engine

    def cursor(self) -> _Cursor:
        return _Cursor(self.conn)

    def execute(self, sql: str) -> None:
        with self.policy.guard("statement"):
            self.conn.execute_command(sql)

    def query(self, sql: str) -> QueryOutput:
        with self.policy.guard("query"), self.conn.execute_query(sql) as result:
            schema = result.schema.columns
            columns = [c.name.unescaped for c in schema]
            convert = [_CONVERT.get(str(c.type)) for c in schema]
            rows = [tuple(row) for row in result]
        for i, fn in enumerate(convert):
            if fn is not None:
                rows = [(*r[:i], None if r[i] is None else fn(r[i]), *r[i + 1 :]) for r in rows]
        return QueryOutput(columns, rows)

    def insert_rows(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            self.hyper_engine.copy_in(self.conn, table, data.to_batches())

    def delete_keys(self, table: str, column: str, keys: list[int]) -> int:
        listed = ", ".join(map(str, keys))
        return int(self.conn.execute_command(f"DELETE FROM {table} WHERE {column} IN ({listed})"))

    def cancel(self) -> None:
        self.conn.cancel()

    def backend_pid(self) -> int | None:
        """The server process serving this connection: the engine's own ``hyperd``, which
        serves no one else (o2c counts its CPU as the run's); None if the API hides it."""
        return self.hyper_engine.server_pid

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


class HyperEngine(SqlEngine):
    name: ClassVar[str] = "hyper"
    dialect: ClassVar[str] = "hyper"
    capabilities: ClassVar[Capabilities] = Capabilities(
        parallel_load=True,  # one COPY stream per table, each on its own connection
        cancel=True,
        storage_size=True,
    )
    facts: ClassVar[EngineFacts] = EngineFacts(
        transactional=True,
        secondary_indexes=False,  # "Index support is disabled": o2c prepares without them
        bytes_per_sf=BYTES_PER_SF,
        server_processes=("hyperd", "hyperdMain"),  # Linux shows the latter (its main thread)
        display_name="Tableau Hyper",
    )
    ddl_rules: ddl.DdlRules = DDL

    def __init__(self, url: EngineURL) -> None:
        options = HyperOptions.from_url(url)
        super().__init__(
            url, ErrorPolicy(url, (hapi.HyperException,), cancelled=_cancelled), options
        )
        self.keys = False  # Hyper has no indexes: no primary or foreign keys
        self.copy_rows = options.copy_rows
        self._own_folder: str | None = None
        if url.database:
            self.path = os.path.abspath(url.database)
            folder = os.path.dirname(self.path)
            if not os.path.isdir(folder):
                raise DriversError(f"no such directory for the Hyper file: {folder}")
        else:
            self._own_folder = tempfile.mkdtemp(prefix="dbbench-hyper-db-")
            self.path = os.path.join(self._own_folder, "bench.hyper")
        self._spool = make_spool(SPOOL_PREFIX, 1 << 30)
        parameters = {"log_dir": self._spool, **HyperOptions.driver_options(url)}
        self._lock = threading.Lock()
        with self.policy.guard("start hyperd"):
            self._process = hapi.HyperProcess(
                telemetry=hapi.Telemetry.DO_NOT_SEND_USAGE_DATA_TO_TABLEAU,
                parameters=parameters,
            )
        try:
            with self.policy.guard("connect"):
                conn = hapi.Connection(
                    self._process.endpoint, self.path, hapi.CreateMode.CREATE_IF_NOT_EXISTS
                )
        except BaseException:
            self._stop()
            raise
        #: the ``hyperd`` this engine started; it serves only this engine's connections
        self.server_pid = _server_pid(self._process)
        self._admin = HyperSession(self, conn)

    def admin(self) -> SqlSession:
        return self._admin

    def session(self) -> HyperSession:
        with self._lock, self.policy.guard("connect"):
            return HyperSession(self, hapi.Connection(self._process.endpoint, self.path))

    def create_schema(self) -> None:
        with self.policy.guard("create schema"):
            for table in ddl.drop_order():
                self._admin.conn.execute_command(ddl.drop_table(table))
            for table in TABLES:
                self._admin.conn.execute_command(ddl.create_table(table, DDL, keys=False))
            self._admin.conn.execute_command(_STATE_DDL)
            self._admin.conn.execute_command(f"DELETE FROM {ddl.STATE_TABLE}")

    def write_state(self, values: dict[str, str]) -> None:
        """Keys replaced in one transaction (the table has no primary key: no indexes)."""
        with self.policy.guard("write state"):
            self._admin.conn.execute_command(_STATE_DDL)
            with self._admin.transaction():
                for key, value in values.items():
                    k, v = _text(key), _text(value)
                    self._admin.conn.execute_command(
                        f"DELETE FROM {ddl.STATE_TABLE} WHERE state_key = {k}"
                    )
                    self._admin.conn.execute_command(
                        f"INSERT INTO {ddl.STATE_TABLE} VALUES ({k}, {v})"
                    )

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        session = self.session()
        try:
            with self.policy.guard(f"load {table}"):
                return self.copy_in(session.conn, table, batches)
        finally:
            session.close()

    def copy_in(self, conn: Any, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """The batches into ``table`` through spooled Arrow IPC stream files of at most
        ``copy_rows`` rows, each copied as soon as it is complete. Returns rows."""
        rows = 0
        for path, count in self._spooled(table, batches):
            try:
                conn.execute_command(f"COPY {table} FROM {_text(path)} WITH (FORMAT arrowstream)")
            finally:
                os.unlink(path)
            rows += count
        return rows

    def _spooled(self, table: str, batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[str, int]]:
        schema = TABLES[table].arrow_schema
        source = iter(batches)
        batch = next(source, None)
        while batch is not None:
            path = os.path.join(self._spool, f"{table}-{uuid.uuid4().hex}.arrows")
            count = 0
            try:
                with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, schema) as writer:
                    while batch is not None and (count == 0 or count < self.copy_rows):
                        writer.write_batch(batch)
                        count += batch.num_rows
                        batch = next(source, None)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(path)
                raise
            yield path, count

    def version(self) -> str:
        return f"Hyper {hapi.__version__}"

    def settings(self) -> dict[str, str]:
        return {
            "database": self.path,
            "server": "hyperd, a child process of this one (tableauhyperapi)",
            "load": (
                f"Arrow IPC files of {self.copy_rows} rows in a spool ({self._spool}), "
                "COPY ... WITH (FORMAT arrowstream), tables in parallel: Hyper reads files only"
            ),
            "keys": "none (Hyper has no indexes)",
            "q15": "a WITH clause (views are disabled in Hyper)",
            "streams": "one connection per stream, concurrent (Python's lock released)",
            **HyperOptions.driver_options(self.url),
        }

    def storage_bytes(self) -> int | None:
        return os.path.getsize(self.path) if os.path.exists(self.path) else None

    def close(self) -> None:
        self._admin.close()
        self._stop()

    def _stop(self) -> None:
        with contextlib.suppress(Exception):
            self._process.close()
        shutil.rmtree(self._spool, ignore_errors=True)
        if self._own_folder is not None:
            shutil.rmtree(self._own_folder, ignore_errors=True)


#: The kit's bookkeeping, without the primary key Hyper cannot have.
_STATE_DDL = (
    f"CREATE TABLE IF NOT EXISTS {ddl.STATE_TABLE} "
    "(state_key TEXT NOT NULL, state_value TEXT NOT NULL)"
)

#: Hyper's values that are not Python's own, by the result column's type.
_CONVERT: dict[str, Any] = {
    "DATE": lambda v: v.to_date(),
    "TIMESTAMP": lambda v: v.to_datetime(),
}


def _server_pid(process: Any) -> int | None:
    """The PID of the ``hyperd`` that ``process`` (a ``HyperProcess``) started, from the API's
    C layer (the Python class shows it only in its ``repr``); None where it cannot tell."""
    try:
        from tableauhyperapi.impl import hapi as capi  # the C API under the Python classes

        pid = int(capi.hyper_instance_get_pid(process._cdata))
    except Exception:  # an API without it: the figure falls back to the process names
        return None
    return pid if pid > 0 else None


def _cancelled(exc: BaseException) -> bool:
    return "canceled" in str(exc) or "cancelled" in str(exc)


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def connect(url: EngineURL) -> HyperEngine:
    """The registry's entry point for ``hyper`` URLs (a file; ``hyperd`` runs locally)."""
    check_local(url, "Hyper", "file")
    return HyperEngine(url)
