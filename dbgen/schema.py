"""The eight TPC-H tables, defined once for the whole project.

Every other part of dbbench (the generator's sinks, the loaders, the DDL of each engine)
derives what it needs from :data:`TABLES`: column names and order, Arrow types, the
specification's SQL types, primary keys and the dbgen letters used by ``-T``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pyarrow as pa


class Kind(Enum):
    """The logical column types of TPC-H clause 1.3.1."""

    IDENTIFIER = "identifier"  # keys; 64-bit because order keys pass 2**31 at SF >= 300
    INTEGER = "integer"
    DECIMAL = "decimal"  # DECIMAL(15,2), held as integer cents in the generator
    CHAR = "char"
    VARCHAR = "varchar"
    DATE = "date"


_ARROW: dict[Kind, pa.DataType] = {
    Kind.IDENTIFIER: pa.int64(),
    Kind.INTEGER: pa.int32(),
    Kind.DECIMAL: pa.decimal128(15, 2),
    Kind.CHAR: pa.string(),
    Kind.VARCHAR: pa.string(),
    Kind.DATE: pa.date32(),
}


@dataclass(frozen=True)
class Column:
    """One column: its name, logical type and, for strings, the declared length."""

    name: str
    kind: Kind
    length: int | None = None

    @property
    def arrow_type(self) -> pa.DataType:
        return _ARROW[self.kind]

    @property
    def sql_type(self) -> str:
        """The type as the specification writes it (ANSI SQL); dialects map from here."""
        if self.kind is Kind.IDENTIFIER:
            return "BIGINT"
        if self.kind is Kind.INTEGER:
            return "INTEGER"
        if self.kind is Kind.DECIMAL:
            return "DECIMAL(15,2)"
        if self.kind is Kind.DATE:
            return "DATE"
        return f"{self.kind.value.upper()}({self.length})"


@dataclass(frozen=True)
class Table:
    """One table: name, columns in file order, primary key and dbgen's ``-T`` letter."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    letter: str

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def arrow_schema(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, c.arrow_type, nullable=False) for c in self.columns])

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


def _t(name: str, letter: str, pk: tuple[str, ...], *cols: tuple[str, Kind, int | None]) -> Table:
    return Table(name, tuple(Column(n, k, ln) for n, k, ln in cols), pk, letter)


ID, INT, DEC, CHAR, VAR, DATE = (
    Kind.IDENTIFIER,
    Kind.INTEGER,
    Kind.DECIMAL,
    Kind.CHAR,
    Kind.VARCHAR,
    Kind.DATE,
)

REGION = _t(
    "region",
    "r",
    ("r_regionkey",),
    ("r_regionkey", ID, None),
    ("r_name", CHAR, 25),
    ("r_comment", VAR, 152),
)
NATION = _t(
    "nation",
    "n",
    ("n_nationkey",),
    ("n_nationkey", ID, None),
    ("n_name", CHAR, 25),
    ("n_regionkey", ID, None),
    ("n_comment", VAR, 152),
)
SUPPLIER = _t(
    "supplier",
    "s",
    ("s_suppkey",),
    ("s_suppkey", ID, None),
    ("s_name", CHAR, 25),
    ("s_address", VAR, 40),
    ("s_nationkey", ID, None),
    ("s_phone", CHAR, 15),
    ("s_acctbal", DEC, None),
    ("s_comment", VAR, 101),
)
PART = _t(
    "part",
    "P",
    ("p_partkey",),
    ("p_partkey", ID, None),
    ("p_name", VAR, 55),
    ("p_mfgr", CHAR, 25),
    ("p_brand", CHAR, 10),
    ("p_type", VAR, 25),
    ("p_size", INT, None),
    ("p_container", CHAR, 10),
    ("p_retailprice", DEC, None),
    ("p_comment", VAR, 23),
)
PARTSUPP = _t(
    "partsupp",
    "S",
    ("ps_partkey", "ps_suppkey"),
    ("ps_partkey", ID, None),
    ("ps_suppkey", ID, None),
    ("ps_availqty", INT, None),
    ("ps_supplycost", DEC, None),
    ("ps_comment", VAR, 199),
)
CUSTOMER = _t(
    "customer",
    "c",
    ("c_custkey",),
    ("c_custkey", ID, None),
    ("c_name", VAR, 25),
    ("c_address", VAR, 40),
    ("c_nationkey", ID, None),
    ("c_phone", CHAR, 15),
    ("c_acctbal", DEC, None),
    ("c_mktsegment", CHAR, 10),
    ("c_comment", VAR, 117),
)
ORDERS = _t(
    "orders",
    "O",
    ("o_orderkey",),
    ("o_orderkey", ID, None),
    ("o_custkey", ID, None),
    ("o_orderstatus", CHAR, 1),
    ("o_totalprice", DEC, None),
    ("o_orderdate", DATE, None),
    ("o_orderpriority", CHAR, 15),
    ("o_clerk", CHAR, 15),
    ("o_shippriority", INT, None),
    ("o_comment", VAR, 79),
)
LINEITEM = _t(
    "lineitem",
    "L",
    ("l_orderkey", "l_linenumber"),
    ("l_orderkey", ID, None),
    ("l_partkey", ID, None),
    ("l_suppkey", ID, None),
    ("l_linenumber", INT, None),
    ("l_quantity", DEC, None),
    ("l_extendedprice", DEC, None),
    ("l_discount", DEC, None),
    ("l_tax", DEC, None),
    ("l_returnflag", CHAR, 1),
    ("l_linestatus", CHAR, 1),
    ("l_shipdate", DATE, None),
    ("l_commitdate", DATE, None),
    ("l_receiptdate", DATE, None),
    ("l_shipinstruct", CHAR, 25),
    ("l_shipmode", CHAR, 10),
    ("l_comment", VAR, 44),
)

#: The eight tables in dbgen's generation order (which is also a valid load order).
TABLES: dict[str, Table] = {
    t.name: t for t in (PART, PARTSUPP, SUPPLIER, CUSTOMER, ORDERS, LINEITEM, NATION, REGION)
}

#: Columns whose values come from a small fixed domain whatever the scale factor (the
#: spec's value lists, the 2,557 order and ship dates, small integer ranges; the clerks,
#: 1,000 per SF). Columnar writers dictionary-encode these and only these: on keys, prices,
#: names and comments a dictionary is CPU spent for nothing (it overflows and falls back).
FEW_VALUES: frozenset[str] = frozenset(
    {
        *("r_name", "n_name", "n_regionkey", "s_nationkey", "c_nationkey", "c_mktsegment"),
        *("p_mfgr", "p_brand", "p_type", "p_size", "p_container", "ps_availqty"),
        *("o_orderstatus", "o_orderdate", "o_orderpriority", "o_clerk", "o_shippriority"),
        *("l_linenumber", "l_quantity", "l_discount", "l_tax", "l_returnflag"),
        *("l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate"),
        *("l_shipinstruct", "l_shipmode"),
    }
)

#: Foreign keys the specification allows (clause 1.4.2.3):
#: (table, columns, referenced table, referenced columns).
FOREIGN_KEYS: tuple[tuple[str, tuple[str, ...], str, tuple[str, ...]], ...] = (
    ("nation", ("n_regionkey",), "region", ("r_regionkey",)),
    ("supplier", ("s_nationkey",), "nation", ("n_nationkey",)),
    ("customer", ("c_nationkey",), "nation", ("n_nationkey",)),
    ("partsupp", ("ps_partkey",), "part", ("p_partkey",)),
    ("partsupp", ("ps_suppkey",), "supplier", ("s_suppkey",)),
    ("orders", ("o_custkey",), "customer", ("c_custkey",)),
    ("lineitem", ("l_orderkey",), "orders", ("o_orderkey",)),
    ("lineitem", ("l_partkey", "l_suppkey"), "partsupp", ("ps_partkey", "ps_suppkey")),
)
