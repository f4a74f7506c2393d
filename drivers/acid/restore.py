"""The database as it was before ``dbbench acid``: every line and order a committed ACID
Transaction changed set back (after the tests, and after Ctrl-C), then HISTORY dropped.

HISTORY holds one row per committed ACID Transaction, written in the same transaction as
its two updates, so it is the list of what to undo; the undo is one transaction with the
emptying of HISTORY (all or nothing: after a failure HISTORY still lists every change).
A line's price per unit is constant under the ACID Transaction (``L_EXTENDEDPRICE = L_QUANTITY *
P_RETAILPRICE`` in TPC-H data, and each transaction adds ``trunc(price per unit *
DELTA)``), so for a line changed by deltas d1..dn the original is ``quantity - sum(d)``
and ``extprice - sum(trunc(unit * d))``; the order's total telescopes: ``total +
charge(original line) - charge(line now)``.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import suppress
from decimal import Decimal

from dbbench.drivers.acid.transaction import HISTORY, charge, read_line, read_total, trunc
from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import DriversError


def restore(engine: Engine) -> list[str]:
    """Undo every change HISTORY records, then drop it; returns what could not be done, one
    phrase each (empty: the database is as it was)."""
    session = engine.session()
    try:
        for _round in range(5):  # a transaction that committed while one round ran: again
            left = _round_of(engine, session)
            if left is None:
                return []  # no HISTORY: the tests changed nothing yet
            if left:
                return left
            rows = session.query(f"SELECT COUNT(*) FROM {HISTORY}").rows
            if int(rows[0][0]) == 0:
                break
        try:
            session.execute(f"DROP TABLE {HISTORY}")
        except DriversError as exc:
            return [f"table {HISTORY} (empty) not dropped: {exc}"]
        return []
    finally:
        session.close()


def _round_of(engine: Engine, session: Session) -> list[str] | None:
    """One transaction: the changes HISTORY lists in its snapshot undone, those rows
    deleted (all or nothing). None: there is no HISTORY."""
    try:
        session.execute(engine.facts.begin)
        rows = session.query(f"SELECT h_o_key, h_l_key, h_delta, h_date_t FROM {HISTORY}").rows
    except DriversError:
        with suppress(DriversError):
            session.execute("ROLLBACK")
        return None
    deltas: dict[tuple[int, int], list[int]] = defaultdict(list)
    for o_key, l_key, delta, _date_t in rows:
        deltas[int(o_key), int(l_key)].append(int(delta))
    try:
        for (o_key, l_key), changes in sorted(deltas.items()):
            _undo(session, o_key, l_key, changes)
            session.execute(f"DELETE FROM {HISTORY} WHERE h_o_key = {o_key} AND h_l_key = {l_key}")
        session.execute("COMMIT")
    except DriversError as exc:
        with suppress(DriversError):
            session.execute("ROLLBACK")
        return [
            f"the {len(deltas)} lines the tests changed were not restored: {exc}",
            f"table {HISTORY} kept: it lists the changes not undone",
        ]
    return []


def _undo(session: Session, o_key: int, l_key: int, changes: list[int]) -> None:
    line = read_line(session, o_key, l_key)
    unit = trunc(line.extprice / line.quantity)
    quantity = line.quantity - sum(changes)
    extprice = line.extprice - sum((trunc(unit * d) for d in changes), Decimal(0))
    total = read_total(session, o_key)
    total += charge(extprice, line.disc, line.tax) - charge(line.extprice, line.disc, line.tax)
    session.execute(
        f"UPDATE lineitem SET l_extendedprice = {extprice}, l_quantity = {quantity} "
        f"WHERE l_orderkey = {o_key} AND l_linenumber = {l_key}"
    )
    session.execute(f"UPDATE orders SET o_totalprice = {total} WHERE o_orderkey = {o_key}")
