"""SQL dialects: the spec's query text with a small table of differences per engine.

The templates are written in the specification's (ANSI) SQL. A dialect rewrites only the
few constructs engines disagree on, each a one-line override below; the row limit of
Q2, Q3, Q10, Q18 and Q21 is applied the same way (one clause) for every engine.
"""

from __future__ import annotations

import re
from typing import ClassVar

from dbbench.queries.errors import QueriesError

_DATE = r"date '(\d{4}-\d{2}-\d{2})'"
DATE_ARITH = re.compile(_DATE + r" ([+-]) interval '(\d+)' (day|month|year)(?: \(3\))?")
DATE_LITERAL = re.compile(_DATE)
EXTRACT_YEAR = re.compile(r"extract\(year from ([\w.]+)\)")
SUBSTRING = re.compile(r"substring\(([\w.]+) from (\d+) for (\d+)\)")
DECIMAL_BOUND = re.compile(r"(\d*\.\d+) ([+-]) (\d*\.\d+)")  # Q6: :2 - 0.01, :2 + 0.01

#: Q13 without a derived column list: name the count inside the subquery instead.
_Q13_COLUMN_LIST = re.compile(r"count\(o_orderkey\)(?P<body>.*?\)) as c_orders \([^)]*\)", re.S)


class Dialect:
    """ANSI SQL as the specification and qgen write it (the base of every dialect)."""

    name: ClassVar[str] = "ansi"
    #: ``interval '90' day (3)`` (Q1): the spec's leading-field precision, kept only in ANSI.
    interval_precision: ClassVar[bool] = True
    #: ``(subquery) as t (c1, c2)`` (Q13); MariaDB and SQLite have no derived column lists.
    derived_column_lists: ClassVar[bool] = True

    def limit(self, rows: int) -> str:
        """The row-limit clause appended to Q2, Q3, Q10, Q18 and Q21."""
        return f"fetch first {rows} rows only"

    def date_arith(self, day: str, sign: str, count: str, unit: str) -> str:
        precision = " (3)" if self.interval_precision and unit == "day" else ""
        return f"date '{day}' {sign} interval '{count}' {unit}{precision}"

    def date_literal(self, day: str) -> str:
        return f"date '{day}'"

    def extract_year(self, column: str) -> str:
        return f"extract(year from {column})"

    def substring(self, column: str, start: str, length: str) -> str:
        return f"substring({column} from {start} for {length})"

    def translate(self, sql: str) -> str:
        """Rewrite the spec's constructs into this dialect (after parameter substitution)."""
        sql = DATE_ARITH.sub(lambda m: self.date_arith(*m.groups()), sql)
        sql = DATE_LITERAL.sub(lambda m: self.date_literal(m.group(1)), sql)
        sql = EXTRACT_YEAR.sub(lambda m: self.extract_year(m.group(1)), sql)
        sql = SUBSTRING.sub(lambda m: self.substring(*m.groups()), sql)
        if not self.derived_column_lists:
            sql = _Q13_COLUMN_LIST.sub(r"count(o_orderkey) as c_count\g<body> as c_orders", sql)
        return sql


class DuckDB(Dialect):
    name = "duckdb"
    interval_precision = False  # the parser rejects the precision

    def limit(self, rows: int) -> str:
        return f"limit {rows}"


class PostgreSQL(DuckDB):
    name = "postgresql"  # same differences as DuckDB


class Spark(DuckDB):
    """Spark SQL: Q15's view is a temporary view, private to the stream's session."""

    name = "spark"

    def translate(self, sql: str) -> str:
        return super().translate(
            re.sub(r"^create view ", "create temporary view ", sql, flags=re.M)
        )


class DataFusion(DuckDB):
    """Apache DataFusion: DuckDB's differences; Q15's view is a view of the session context."""

    name = "datafusion"


class Polars(DuckDB):
    """Polars' SQL interface has no views: the engine runs Q15's ``create view`` as a frame
    registered for the stream's queries (``drivers.engines.polars``)."""

    name = "polars"


#: A decimal literal without its leading zero (qgen writes Q6's discount as ``.06``).
BARE_DECIMAL = re.compile(r"(?<![\w.])\.(\d+)")


class ClickHouse(DuckDB):
    """ClickHouse (chDB): ``.06`` is not a number to its parser, and decimal literals are
    floats, so Q6's discount bounds are rounded (0.06 + 0.01 < 0.07 as floats)."""

    name = "clickhouse"

    def translate(self, sql: str) -> str:
        sql = BARE_DECIMAL.sub(r"0.\1", sql)
        sql = DECIMAL_BOUND.sub(r"round(\1 \2 \3, 2)", sql)
        return super().translate(sql)


class Hyper(DuckDB):
    """Tableau Hyper: views are disabled, so Q15's view becomes a common table expression
    of its query (the spec's variant A; the view's drop goes with it)."""

    name = "hyper"

    def translate(self, sql: str) -> str:
        return super().translate(_Q15_VIEW.sub(_q15_as_cte, sql))


#: Q15's three statements: the view, the query reading it, the drop.
_Q15_VIEW = re.compile(
    r"create view (?P<name>\w+) (?P<cols>\([^)]*\)) as(?P<body>.*?);\s*"
    r"(?P<query>select.*?);\s*drop view (?P=name);?",
    re.S,
)


def _q15_as_cte(m: re.Match[str]) -> str:
    body = m.group("body").strip()
    return f"with {m.group('name')} {m.group('cols')} as (\n{body}\n)\n{m.group('query')};"


class MySQL(DuckDB):
    """MySQL and MariaDB."""

    name = "mysql"
    derived_column_lists = False


class SQLite(MySQL):
    """SQLite: dates are ISO-8601 text, so literals are strings and arithmetic is date()."""

    name = "sqlite"

    def date_arith(self, day: str, sign: str, count: str, unit: str) -> str:
        return f"date('{day}', '{sign}{count} {unit}s')"

    def date_literal(self, day: str) -> str:
        return f"'{day}'"

    def extract_year(self, column: str) -> str:
        return f"cast(strftime('%Y', {column}) as integer)"

    def substring(self, column: str, start: str, length: str) -> str:
        return f"substr({column}, {start}, {length})"

    def translate(self, sql: str) -> str:
        """Also round Q6's discount bounds: without a decimal type, 0.06 + 0.01 < 0.07."""
        sql = DECIMAL_BOUND.sub(r"round(\1 \2 \3, 2)", sql)
        return super().translate(sql)


_DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        DuckDB(),
        PostgreSQL(),
        Spark(),
        MySQL(),
        SQLite(),
        DataFusion(),
        Polars(),
        ClickHouse(),
        Hyper(),
        Dialect(),
    )
}

#: The dialect names :func:`queries.render.render` accepts.
DIALECTS: tuple[str, ...] = (
    "duckdb",
    "postgresql",
    "spark",
    "mysql",
    "sqlite",
    "datafusion",
    "polars",
    "clickhouse",
    "hyper",
    "ansi",
)


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; an unknown name is the caller's mistake."""
    try:
        return _DIALECTS[name]
    except KeyError:
        raise QueriesError(
            f"unknown SQL dialect {name!r}; choose one of {', '.join(DIALECTS)}"
        ) from None
