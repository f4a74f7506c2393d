"""A toy engine, added the way every engine is: this one module (and ``conf_toy.py``).

SQLite through the standard library's sqlite3 alone, foreign keys checked on the query and
refresh connections. It declares its registry entry (``ENGINE``), its DDL rules, the query
dialect it speaks (``dialect``), its facts (``facts``: what the telemetry sampler reads from
it, its preflight rule, how a write transaction begins, its bytes per SF), its typed URL
options and ``connect``; the test registers it through the ``dbbench.engines`` entry-point
group, as a third-party package would. That is all the TPC-H suite, the o2c workload,
telemetry and ``dbbench preflight`` need (``test_engine_added_in_one_module.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import pyarrow as pa

from dbbench.drivers import ddl
from dbbench.drivers.engine import Capabilities, Counters, EngineFacts, EngineSpec, SettingRule
from dbbench.drivers.engines.common import ErrorPolicy, SqlEngine, SqlSession
from dbbench.drivers.errors import DriversError
from dbbench.drivers.options import EngineOptions
from dbbench.drivers.url import EngineURL

ENGINE = EngineSpec(
    name="toy",
    url_form="toy:///file.db",
    requires=("sqlite3",),
    install="pip install dbbench-toy",
)

DDL = ddl.DdlRules("toy", keys_in_create=True, alter_foreign_keys=False)


@dataclass(frozen=True)
class ToyOptions(EngineOptions):
    foreign_keys: bool = True  # PRAGMA foreign_keys on the query and refresh connections


class ToySession(SqlSession):
    def cancel(self) -> None:
        self.conn.interrupt()


class ToyEngine(SqlEngine):
    name: ClassVar[str] = "toy"
    dialect: ClassVar[str] = "sqlite"
    capabilities: ClassVar[Capabilities] = Capabilities(cancel=True, storage_size=True)
    facts: ClassVar[EngineFacts] = EngineFacts(
        bytes_per_sf=1.0e9,
        display_name="Toy",
        begin="BEGIN IMMEDIATE",  # queue for the write lock at once (o2c's dialog steps)
        counters=Counters(  # sampled by the telemetry sampler, as levels
            "SELECT page_count * page_size AS toy_file_bytes, freelist_count AS toy_free_pages "
            "FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()"
        ),
        preflight=(
            SettingRule("cache_bytes", "is smaller than {db}: the toy reads its pages from disk"),
        ),
    )
    ddl_rules: ddl.DdlRules = DDL

    def __init__(self, url: EngineURL) -> None:
        options = ToyOptions.from_url(url)
        super().__init__(url, ErrorPolicy(url, (sqlite3.Error,), cancelled=_interrupted), options)
        if not url.database:
            raise DriversError("the toy engine needs a file: toy:///file.db")
        self.path = url.database
        self.foreign_keys = options.foreign_keys
        self._admin = SqlSession(self, self._connect(checks=False))
        self._admin.execute("PRAGMA journal_mode=WAL")

    def _connect(self, *, checks: bool) -> sqlite3.Connection:
        with self.policy.guard("connect"):
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA foreign_keys = {'ON' if checks else 'OFF'}")
        return conn

    def admin(self) -> SqlSession:
        return self._admin

    def session(self) -> ToySession:
        return ToySession(self, self._connect(checks=self.foreign_keys))

    def python_column(self, column: pa.ChunkedArray) -> list[Any]:
        if pa.types.is_decimal(column.type):
            column = column.cast(pa.float64())
        elif pa.types.is_date(column.type):
            column = column.cast(pa.string())
        return column.to_pylist()  # type: ignore[no-any-return]

    def load_table(self, table: str, batches: Iterable[pa.RecordBatch]) -> int:
        session = SqlSession(self, self._connect(checks=False))
        rows = 0
        try:
            with self.policy.guard(f"load {table}"):
                for batch in batches:
                    with session.transaction():
                        session.insert_rows(table, pa.Table.from_batches([batch]))
                    rows += batch.num_rows
        finally:
            session.close()
        return rows

    def version(self) -> str:
        return f"toy 1.0 (SQLite {sqlite3.sqlite_version})"

    def settings(self) -> dict[str, str]:
        pages = int(self._admin.query("PRAGMA cache_size").rows[0][0])  # < 0: KiB
        page = int(self._admin.query("PRAGMA page_size").rows[0][0])
        cache = -pages * 1024 if pages < 0 else pages * page
        return {"foreign_keys": "on" if self.foreign_keys else "off", "cache_bytes": str(cache)}

    def storage_bytes(self) -> int | None:
        pages = self._admin.query("PRAGMA page_count").rows[0][0]
        size = self._admin.query("PRAGMA page_size").rows[0][0]
        return int(pages) * int(size)

    def close(self) -> None:
        self._admin.close()


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)


def connect(url: EngineURL) -> ToyEngine:
    return ToyEngine(url)
