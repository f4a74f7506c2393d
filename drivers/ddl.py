"""DDL for the eight tables, derived from :mod:`dbgen.schema` for each engine.

The schema is written once (``dbgen.schema.TABLES``); an engine's :class:`DdlRules`, declared
in its own module, are only the small table of what differs: type names, and whether keys
must be declared inside ``CREATE TABLE`` (SQLite cannot add constraints later; InnoDB
clusters rows by the primary key, so declaring it up front and loading in key order avoids
rebuilding every table afterwards).

Keys and indexes are the ones TPC-H clause 1.4.2 allows: primary keys, foreign keys, and
indexes on foreign-key columns and on single DATE columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dbbench.dbgen.schema import FOREIGN_KEYS, TABLES, Column, Kind

#: The kit's bookkeeping table (scale factor, next update set, load time, kit version).
STATE_TABLE = "dbbench_state"

#: DATE columns that get an index where the engine uses indexes (clause 1.4.2 allows it).
DATE_INDEXES: tuple[tuple[str, str], ...] = (("orders", "o_orderdate"), ("lineitem", "l_shipdate"))


def spec_type(column: Column) -> str:
    """The specification's own type names (ANSI SQL)."""
    return column.sql_type


def varchar_only(column: Column) -> str:
    """Engines where CHAR(n) is only a padded VARCHAR and lengths are not enforced."""
    if column.kind in (Kind.CHAR, Kind.VARCHAR):
        return "VARCHAR"
    return column.sql_type


@dataclass(frozen=True)
class DdlRules:
    """What differs between engines in the DDL; everything else comes from the schema.

    (The query text's differences are a :class:`queries.dialects.Dialect`, named by
    ``Engine.dialect``.)"""

    name: str
    type_name: Callable[[Column], str] = spec_type
    keys_in_create: bool = False  # primary and foreign keys inside CREATE TABLE
    alter_foreign_keys: bool = True  # ALTER TABLE ... ADD FOREIGN KEY after the load
    table_suffix: str = ""  # e.g. MySQL's ENGINE clause


#: The specification's DDL: types as written, keys added after the load.
ANSI = DdlRules("ansi")


def _foreign_keys_of(table: str) -> list[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    return [fk for fk in FOREIGN_KEYS if fk[0] == table]


def fk_name(table: str, columns: tuple[str, ...]) -> str:
    return f"fk_{table}_{'_'.join(columns)}"


def create_table(table: str, rules: DdlRules, *, keys: bool = True) -> str:
    """``CREATE TABLE``; keys are inside only where the engine needs them there."""
    spec = TABLES[table]
    lines = [f"{c.name} {rules.type_name(c)} NOT NULL" for c in spec.columns]
    if keys and rules.keys_in_create:
        lines.append(f"CONSTRAINT pk_{table} PRIMARY KEY ({', '.join(spec.primary_key)})")
        if not rules.alter_foreign_keys:
            for _, cols, ref, ref_cols in _foreign_keys_of(table):
                lines.append(
                    f"CONSTRAINT {fk_name(table, cols)} FOREIGN KEY ({', '.join(cols)}) "
                    f"REFERENCES {ref} ({', '.join(ref_cols)})"
                )
    body = ",\n  ".join(lines)
    return f"CREATE TABLE {table} (\n  {body}\n){rules.table_suffix}"


def drop_table(table: str) -> str:
    return f"DROP TABLE IF EXISTS {table}"


def drop_order() -> list[str]:
    """Children before parents, so foreign keys never block a drop."""
    return ["lineitem", "orders", "partsupp", "customer", "supplier", "part", "nation", "region"]


def add_primary_key(table: str) -> str:
    cols = ", ".join(TABLES[table].primary_key)
    return f"ALTER TABLE {table} ADD CONSTRAINT pk_{table} PRIMARY KEY ({cols})"


def add_foreign_keys() -> list[str]:
    """One ``ALTER TABLE`` per foreign key of clause 1.4.2.3, parents first."""
    return [
        f"ALTER TABLE {t} ADD CONSTRAINT {fk_name(t, cols)} FOREIGN KEY ({', '.join(cols)}) "
        f"REFERENCES {ref} ({', '.join(ref_cols)})"
        for t, cols, ref, ref_cols in FOREIGN_KEYS
    ]


def orphan_counts_sql() -> str:
    """One query of (foreign key, rows whose key has no parent) rows, a row per foreign key
    of clause 1.4.2.3: referential integrity counted where no constraint checks it."""
    parts = []
    for table, cols, ref, ref_cols in FOREIGN_KEYS:
        match = " AND ".join(f"p.{r} = c.{c}" for c, r in zip(cols, ref_cols, strict=True))
        parts.append(
            f"SELECT '{fk_name(table, cols)}', COUNT(*) FROM {table} c "
            f"WHERE NOT EXISTS (SELECT 1 FROM {ref} p WHERE {match})"
        )
    return " UNION ALL ".join(parts)


def index_columns() -> list[tuple[str, tuple[str, ...]]]:
    """Foreign-key columns not already a prefix of the primary key, then the date columns."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for table, cols, _, _ in FOREIGN_KEYS:
        if TABLES[table].primary_key[: len(cols)] != cols:
            found.append((table, cols))
    found.extend((table, (col,)) for table, col in DATE_INDEXES)
    return found


def create_indexes() -> list[str]:
    return [
        f"CREATE INDEX ix_{table}_{'_'.join(cols)} ON {table} ({', '.join(cols)})"
        for table, cols in index_columns()
    ]


def create_state_table() -> str:
    """``key``/``value`` are reserved words in MySQL, hence the prefixed column names."""
    return (
        f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} "
        "(state_key VARCHAR(64) NOT NULL PRIMARY KEY, state_value VARCHAR(1000) NOT NULL)"
    )
