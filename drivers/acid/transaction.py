"""The ACID Transaction (3.1.5), the ACID Query (3.1.6) and the consistency condition
(3.3.2.1) on one :class:`Session`.

The arithmetic is done here in exact decimals on the values the engine returns (every
engine's SQL truncates differently); the statements are plain SQL with literals.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any

from dbbench.drivers.engine import Session

HISTORY = "history"
CENT = Decimal("0.01")

HISTORY_DDL = (
    f"CREATE TABLE {HISTORY} (h_p_key BIGINT, h_s_key BIGINT, h_o_key BIGINT, "
    "h_l_key INTEGER, h_delta INTEGER, h_date_t VARCHAR(32))"
)


def dec(value: Any) -> Decimal:
    """A value the engine returned, as an exact decimal (floats through their text)."""
    exact = value if isinstance(value, Decimal) else Decimal(str(value))
    return exact.quantize(CENT)  # every column read has at most two decimals


def trunc(value: Decimal) -> Decimal:
    """``trunc(n, 2)``: toward zero, to cents."""
    return value.quantize(CENT, rounding=ROUND_DOWN)


def charge(extprice: Decimal, disc: Decimal, tax: Decimal) -> Decimal:
    return trunc(trunc(extprice * (1 - disc)) * (1 + tax))


@dataclass(frozen=True)
class Line:
    quantity: Decimal
    extprice: Decimal
    partkey: int
    suppkey: int
    tax: Decimal
    disc: Decimal


@dataclass(frozen=True)
class Applied:
    """What one ACID Transaction read and wrote."""

    o_key: int
    l_key: int
    delta: int
    old_total: Decimal
    old_line: Line
    new_total: Decimal
    new_extprice: Decimal
    new_quantity: Decimal


def read_total(session: Session, o_key: int, lock: str = "") -> Decimal:
    sql = f"SELECT o_totalprice FROM orders WHERE o_orderkey = {o_key}"
    rows = session.query(sql + lock).rows
    return dec(rows[0][0])


def read_line(session: Session, o_key: int, l_key: int, lock: str = "") -> Line:
    rows = session.query(
        "SELECT l_quantity, l_extendedprice, l_partkey, l_suppkey, l_tax, l_discount "
        f"FROM lineitem WHERE l_orderkey = {o_key} AND l_linenumber = {l_key}" + lock
    ).rows
    q, e, p, s, t, d = rows[0]
    return Line(dec(q), dec(e), int(p), int(s), dec(t), dec(d))


def acid_transaction(
    session: Session, o_key: int, l_key: int, delta: int, date_t: str, lock: str = ""
) -> Applied:
    """Steps 1-7 of 3.1.5 up to (not including) COMMIT: the caller begins the transaction
    and commits or rolls it back. ``lock``: the clause that makes the reads lock the rows
    they read (``engine.facts.lock_read``), so a concurrent transaction waits before it
    reads, not only before it writes (serializable ACID Transactions at READ COMMITTED or
    REPEATABLE READ)."""
    total = read_total(session, o_key, lock)
    line = read_line(session, o_key, l_key, lock)
    ototal = total - charge(line.extprice, line.disc, line.tax)
    rprice = trunc(line.extprice / line.quantity)
    cost = trunc(rprice * delta)
    new_extprice = line.extprice + cost
    new_quantity = line.quantity + delta
    new_ototal = ototal + charge(new_extprice, line.disc, line.tax)
    session.execute(
        f"UPDATE lineitem SET l_extendedprice = {new_extprice}, l_quantity = {new_quantity} "
        f"WHERE l_orderkey = {o_key} AND l_linenumber = {l_key}"
    )
    session.execute(f"UPDATE orders SET o_totalprice = {new_ototal} WHERE o_orderkey = {o_key}")
    session.execute(
        f"INSERT INTO {HISTORY} VALUES ({line.partkey}, {line.suppkey}, {o_key}, {l_key}, "
        f"{delta}, '{date_t}')"
    )
    return Applied(o_key, l_key, delta, total, line, new_ototal, new_extprice, new_quantity)


def acid_query(session: Session, o_key: int) -> Decimal:
    """3.1.6: the sum of the order's lines' charges."""
    rows = session.query(
        f"SELECT l_extendedprice, l_discount, l_tax FROM lineitem WHERE l_orderkey = {o_key}"
    ).rows
    return sum((charge(dec(e), dec(d), dec(t)) for e, d, t in rows), Decimal("0.00"))


def inconsistent(session: Session, o_keys: list[int]) -> list[str]:
    """3.3.2.1 on these orders: each order whose total differs from its ACID Query."""
    bad = []
    for o_key in o_keys:
        total, summed = read_total(session, o_key), acid_query(session, o_key)
        if trunc(total) != trunc(summed):
            bad.append(f"order {o_key}: O_TOTALPRICE {total} but the ACID Query {summed}")
    return bad


def last_line(session: Session, o_key: int) -> int:
    """The order's highest line number (the L_KEY implementations commonly take)."""
    rows = session.query(f"SELECT MAX(l_linenumber) FROM lineitem WHERE l_orderkey = {o_key}").rows
    return int(rows[0][0])


def history_rows(session: Session, o_key: int, l_key: int, delta: int) -> int:
    rows = session.query(
        f"SELECT COUNT(*) FROM {HISTORY} WHERE h_o_key = {o_key} AND h_l_key = {l_key} "
        f"AND h_delta = {delta}"
    ).rows
    return int(rows[0][0])
