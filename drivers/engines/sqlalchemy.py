"""Any database SQLAlchemy can reach: DDL from the schema through the dialect's own type
names, bulk inserts with ``executemany`` from Arrow columns, RF1/RF2 in transactions.

SQLAlchemy is used for what it is good at here (the URL, finding and loading the DB-API
driver, compiling type names); the statements themselves run on raw DB-API connections in
autocommit mode with explicit ``BEGIN``/``COMMIT``, so a session costs no ORM overhead.
Engines with their own module build on it (``mysql.py``, ``sqlite.py``); this one serves
every URL scheme no other engine names.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from dbbench.dbgen.schema import Column, Kind
from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, EngineSpec
from dbbench.drivers.engines.common import ErrorPolicy, SqlEngine, SqlSession
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL, redact

ENGINE = EngineSpec(
    name="sqlalchemy",
    url_form="any other SQLAlchemy URL",
    requires=("sqlalchemy",),
)

LOAD_BATCH_ROWS = 50_000  # rows per executemany transaction while loading

_PLACEHOLDERS = {"qmark": "?", "format": "%s", "pyformat": "%s"}


@dataclass(frozen=True)
class AlchemyOptions(EngineOptions):
    """The kit's options; every other query option goes into the SQLAlchemy URL."""

    keys: bool = True  # primary and foreign keys
    indexes: bool = False  # the allowed secondary indexes after the load
    load_batch: int = LOAD_BATCH_ROWS  # rows per executemany transaction while loading


def sa_url(
    url: EngineURL, options: type[EngineOptions] = AlchemyOptions, drivername: str | None = None
) -> sa.URL:
    return sa.URL.create(
        drivername or url.drivername,
        username=url.username,
        password=url.password,
        host=url.host,
        port=url.port,
        database=url.database,
        query=options.driver_options(url),
    )


def create_sa_engine(url: EngineURL, target: sa.URL, **kwargs: Any) -> sa.Engine:
    """``create_engine`` with driver problems turned into one line with an install hint."""
    try:
        return sa.create_engine(target, isolation_level="AUTOCOMMIT", **kwargs)
    except ImportError as exc:
        module = getattr(exc, "name", None) or str(exc)
        raise DriversError(
            f"engine {url.drivername!r} needs the Python module {module!r}: pip install {module}"
        ) from None
    except sa.exc.NoSuchModuleError:
        raise DriversError(
            f"SQLAlchemy has no dialect {url.drivername!r} (URL {redact(url)}); install the "
            "package that provides it"
        ) from None
    except (sa.exc.ArgumentError, ValueError, TypeError) as exc:
        raise DriversError(f"bad engine URL {redact(url)}: {exc}") from None


class AlchemySession(SqlSession):
    """A raw DB-API connection checked out of the SQLAlchemy engine."""

    def close(self) -> None:
        """A connection interrupted mid-statement (Ctrl-C) cannot be reset; SQLAlchemy would
        log that failure with a traceback on stderr. So reset it here, and discard one that
        cannot be reset instead of handing it back."""
        try:
            self.conn.rollback()
        except Exception:
            with suppress(Exception):
                self.conn.invalidate()
            return
        super().close()


class SqlAlchemyEngine(SqlEngine):
    """The generic engine: standard SQL only, one table loading at a time."""

    name: ClassVar[str] = "sqlalchemy"
    dialect: ClassVar[str] = "ansi"
    capabilities: ClassVar[Capabilities] = Capabilities()
    session_class: ClassVar[type[SqlSession]] = AlchemySession

    def __init__(
        self,
        url: EngineURL,
        target: sa.URL | None = None,
        options: AlchemyOptions | None = None,
        **kwargs: Any,
    ) -> None:
        options = options or AlchemyOptions.from_url(url)
        kwargs.setdefault("poolclass", NullPool)
        self.sa = create_sa_engine(url, target or sa_url(url, type(options)), **kwargs)
        dbapi = self.sa.dialect.dbapi
        errors: tuple[type[BaseException], ...] = (sa.exc.SQLAlchemyError,)
        if dbapi is not None and isinstance(getattr(dbapi, "Error", None), type):
            errors += (dbapi.Error,)
        super().__init__(url, self.make_policy(url, errors), options)
        self.keys = options.keys
        self.indexes = options.indexes
        self.load_batch = options.load_batch
        self.ddl_rules = self.make_ddl_rules()
        self._admin = self.session()

    def make_policy(self, url: EngineURL, errors: tuple[type[BaseException], ...]) -> ErrorPolicy:
        dialect = self.sa.dialect

        def lost(exc: BaseException) -> bool:
            """SQLAlchemy's own verdict, else its dialect's: the sessions use DBAPI
            connections directly, so a DBAPI error never passed SQLAlchemy's wrapper."""
            if connection_lost(exc):
                return True
            orig = getattr(exc, "orig", None) or exc
            state = str(getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "")
            if state.startswith("08") or state in _LOST_STATES:
                return True  # SQLSTATE: connection exception, or the server shut it down
            if any(phrase in str(orig).lower() for phrase in _LOST_PHRASES):
                return True
            try:
                return bool(dialect.is_disconnect(orig, None, None))  # type: ignore[arg-type]
            except Exception:
                return False

        return ErrorPolicy(url, errors, lost)

    def make_ddl_rules(self) -> ddl.DdlRules:
        """Type names as this SQLAlchemy dialect writes them."""
        dialect = self.sa.dialect

        def type_name(column: Column) -> str:
            return str(_sa_type(column).compile(dialect=dialect))

        return ddl.DdlRules(dialect.name, type_name=type_name)

    def raw(self) -> Any:
        with self.policy.guard("connect"):
            return self.sa.raw_connection()

    def admin(self) -> SqlSession:
        return self._admin

    def session(self) -> SqlSession:
        return self.session_class(self, self.raw())

    def placeholder(self, index: int) -> str:
        style = self.sa.dialect.paramstyle
        if style == "numeric":
            return f":{index + 1}"
        if style not in _PLACEHOLDERS:
            raise DriversError(
                f"the {self.sa.dialect.name} driver's paramstyle {style!r} is unsupported"
            )
        return _PLACEHOLDERS[style]

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        """``executemany`` in transactions of :data:`LOAD_BATCH_ROWS` rows."""
        session = self.session()
        rows = 0
        try:
            with self.policy.guard(f"load {table}"):
                for data in _rebatch(batches, self.load_batch):
                    with session.transaction():
                        session.insert_rows(table, data)
                    rows += data.num_rows
        finally:
            session.close()
        return rows

    def version(self) -> str:
        info = self.sa.dialect.server_version_info
        number = ".".join(str(p) for p in info) if info else "unknown version"
        return f"{self.sa.dialect.name} {number}"

    def settings(self) -> dict[str, str]:
        return {**super().settings(), "driver": self.sa.dialect.driver}

    def close(self) -> None:
        self._admin.close()
        self.sa.dispose()


def _sa_type(column: Column) -> sa.types.TypeEngine[Any]:
    if column.kind is Kind.IDENTIFIER:
        return sa.BigInteger()
    if column.kind is Kind.INTEGER:
        return sa.Integer()
    if column.kind is Kind.DECIMAL:
        return sa.Numeric(15, 2)
    if column.kind is Kind.DATE:
        return sa.Date()
    if column.kind is Kind.CHAR:
        return sa.CHAR(column.length)
    return sa.VARCHAR(column.length)


def _rebatch(batches: Iterable[pa.RecordBatch], rows: int) -> Iterable[pa.Table]:
    """Regroup generator batches into transactions of about ``rows`` rows."""
    pending: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        pending.append(batch)
        count += batch.num_rows
        if count >= rows:
            yield pa.Table.from_batches(pending)
            pending, count = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


#: SQLSTATEs of a connection the server ended (admin, crash, shutdown), beyond class 08.
_LOST_STATES = frozenset({"57P01", "57P02", "57P03"})
#: What DBAPI drivers say when the connection is gone, whatever their error class.
_LOST_PHRASES = (
    "terminating connection",
    "server closed the connection",
    "connection already closed",
    "lost connection",
    "server has gone away",
    "connection reset",
)


def connection_lost(exc: BaseException) -> bool:
    return isinstance(exc, sa.exc.DisconnectionError) or (
        isinstance(exc, sa.exc.DBAPIError) and bool(exc.connection_invalidated)
    )


def connect(url: EngineURL) -> SqlAlchemyEngine:
    """The registry's entry point for any URL no other engine serves."""
    return SqlAlchemyEngine(url)
