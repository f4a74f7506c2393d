"""Rows another workload added to the TPC-H tables, told apart by their order keys.

A workload that inserts its own orders into ORDERS and LINEITEM (o2c) numbers them from a
key above every TPC-H and refresh-function key and records that key in the database's own
bookkeeping (:data:`~dbbench.drivers.engine.STATE_WORKLOAD_KEYS_FROM`). The TPC-H core (the
loader's reuse check, the sequencer's fact for the judge) counts them here, through the
state key alone: it imports nothing of the workload.
"""

from __future__ import annotations

from dbbench.drivers.engine import STATE_WORKLOAD_KEYS_FROM, Engine


def workload_rows(engine: Engine) -> dict[str, int]:
    """Rows of ORDERS and LINEITEM whose order key is the workload's; empty when no
    workload has recorded its keys."""
    first = engine.read_state().get(STATE_WORKLOAD_KEYS_FROM, "")
    if not first:
        return {}
    key = int(first)
    session = engine.session()
    try:
        orders = session.query(f"SELECT COUNT(*) FROM orders WHERE o_orderkey >= {key}")
        lines = session.query(f"SELECT COUNT(*) FROM lineitem WHERE l_orderkey >= {key}")
    finally:
        session.close()
    return {"orders": int(orders.rows[0][0]), "lineitem": int(lines.rows[0][0])}
