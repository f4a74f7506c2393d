"""Refresh functions and update-set bookkeeping (clauses 2.6, 2.7, 5.3.7; tpch.md 3.4-3.5).

Update sets are consumed in order across the whole life of a database: run 1's power test
takes set 1, its throughput test sets 2..S+1, run 2 goes on from S+2, and a later invocation
on the same database goes on from there. The next-set counter lives in the database itself
(``Engine.read_state``/``write_state``) and is advanced *before* a pair executes, so a crash
mid-pair can never lead to the same set being applied twice.

Generating a set's rows is allowed before the refresh stream runs (clause 5.3.7.8), so the
data of the sets about to be used is generated ahead and only the database work is timed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from dbbench.dbgen.scale import MAX_UPDATE_SET
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import (
    STATE_LINEITEM_ROWS,
    STATE_NEXT_UPDATE_SET,
    STATE_REFRESH_PENDING,
    Engine,
    Session,
)
from dbbench.drivers.errors import ConnectionLostError, DriversError, one_line
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.streams import connection_alive
from dbbench.reports.tpch.model import Interval, IntervalKind, Phase, RunResult, Status

#: The update-set step a stop may have left half-applied (repaired by the next run).
PENDING = STATE_REFRESH_PENDING


@dataclass(frozen=True)
class UpdateSet:
    """One update set, generated ahead: RF1's new rows and RF2's keys."""

    number: int
    orders: pa.Table
    lineitem: pa.Table
    delete_keys: list[int]


def _table(name: str, data: Any) -> pa.Table:
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    return pa.Table.from_batches(list(data), schema=TABLES[name].arrow_schema)


def _keys(data: Any) -> list[int]:
    if isinstance(data, pa.ChunkedArray | pa.Array):
        return [int(k) for k in data.to_numpy()]
    return np.asarray(data, dtype=np.int64).tolist()  # type: ignore[no-any-return]


def generate_update_set(sf: float, number: int) -> UpdateSet:
    """Generate one set (imported here: the generator is only needed once a refresh runs)."""
    from dbbench.dbgen import api as dbgen_api

    return UpdateSet(
        number=number,
        orders=_table("orders", dbgen_api.update_batches("orders", sf, number)),
        lineitem=_table("lineitem", dbgen_api.update_batches("lineitem", sf, number)),
        delete_keys=_keys(dbgen_api.delete_keys(sf, number)),
    )


class UpdateSets:
    """The counter in the database plus a cache of sets generated ahead of use."""

    def __init__(self, engine: Engine, sf: float) -> None:
        self._engine = engine
        self._sf = sf
        self._cache: dict[int, UpdateSet] = {}
        self._lock = threading.Lock()

    def peek(self) -> int:
        """The next unused set, without taking it."""
        value = self._engine.read_state().get(STATE_NEXT_UPDATE_SET, "1")
        try:
            number = int(value)
        except ValueError as exc:
            raise DriversError(f"the database's update-set counter is corrupt: {value!r}") from exc
        if number < 1:
            raise DriversError(f"the database's update-set counter is corrupt: {number}")
        return number

    def reserve(self) -> int:
        """Take the next set and advance the counter (committed) before it is applied, with
        the set's RF1 marked as pending in the same transaction. A pair left half-applied
        by an earlier stop is repaired first."""
        repair_pending(self._engine, self._sf)
        number = self.peek()
        self._engine.write_state({STATE_NEXT_UPDATE_SET: str(number + 1), PENDING: f"{number} rf1"})
        return number

    def applied(self, kind: IntervalKind, data: UpdateSet, rows: int | None) -> None:
        """Record (committed) that ``kind`` of set ``data`` completed: after RF1, RF2 is
        pending; after RF2, nothing is, and LINEITEM's exact count moves on."""
        state = self._engine.read_state()
        lineitem = state.get(STATE_LINEITEM_ROWS)
        values = {PENDING: f"{data.number} rf2" if kind == "rf1" else ""}
        if lineitem is not None and rows is not None:
            # RF2 deleted the orders and their line items
            change = data.lineitem.num_rows if kind == "rf1" else len(data.delete_keys) - rows
            values[STATE_LINEITEM_ROWS] = str(int(lineitem) + change)
        self._engine.write_state(values)

    def prefetch(self, count: int) -> None:
        """Generate the next ``count`` sets now, outside every timed interval."""
        first = self.peek()
        for number in range(first, first + count):
            self.put(self.get(number))

    def get(self, number: int) -> UpdateSet:
        with self._lock:
            cached = self._cache.pop(number, None)
        if cached is not None:
            return cached
        if number > MAX_UPDATE_SET:
            raise DriversError(
                f"update set {number} is beyond the {MAX_UPDATE_SET} sets dbgen can produce "
                "for this database; reload it"
            )
        return generate_update_set(self._sf, number)

    def put(self, data: UpdateSet) -> None:
        with self._lock:
            self._cache[data.number] = data


def repair_pending(engine: Engine, sf: float) -> str | None:
    """Complete or undo, exactly and by key, a refresh pair an earlier stop left
    half-applied (a crash, Ctrl-C, a failed RF1 or RF2); say what was done, or None.

    RF1 pending: whatever of the set's rows RF1 had committed (with ``refresh_batch`` it
    commits in parts) is deleted by the set's own order keys, new keys no other row has.
    RF2 pending (RF1 had completed): RF2 is completed, deleting the set's keys again."""
    pending = engine.read_state().get(PENDING, "")
    if not pending:
        return None
    number_text, _, step = pending.partition(" ")
    if not number_text.isdigit() or step not in ("rf1", "rf2"):
        raise DriversError(f"the database's refresh bookkeeping is corrupt: {pending!r}")
    number = int(number_text)
    data = generate_update_set(sf, number)
    session = engine.session()
    try:
        if step == "rf1":
            keys = _keys(data.orders.column("o_orderkey"))
            removed = session.refresh_delete(keys)
            done = f"its RF1 had not completed: the {removed} row(s) it committed were removed"
        else:
            removed = session.refresh_delete(data.delete_keys)
            done = f"its RF2 had not completed: completed ({removed} more row(s) deleted)"
    finally:
        session.close()
    values = {PENDING: ""}
    if step == "rf2" and STATE_LINEITEM_ROWS in engine.read_state():
        values[STATE_LINEITEM_ROWS] = str(engine.row_counts()["lineitem"])
    engine.write_state(values)
    return f"update set {number} was left half-applied by an earlier stop; {done}"


def _timed_rf(
    ctx: RunContext,
    session: Session,
    kind: IntervalKind,
    where: tuple[Phase, int, int],
    data: UpdateSet,
) -> Interval:
    status: Status = "ok"
    rows: int | None = None
    error: str | None = None
    start = ctx.clock.mono()
    try:
        if kind == "rf1":
            rows = session.refresh_insert(data.orders, data.lineitem)
        else:
            rows = session.refresh_delete(data.delete_keys)
    except Exception as exc:
        status = "cancelled" if ctx.stop.is_set() else "error"
        error = one_line(exc)
    end = ctx.clock.mono()
    return ctx.interval(
        kind, where, start, end, status=status, rows=rows, update_set=data.number, error=error
    )


def run_refresh(
    ctx: RunContext,
    session: Session,
    run: RunResult,
    kind: IntervalKind,
    where: tuple[Phase, int, int],
    data: UpdateSet,
    sets: UpdateSets | None = None,
) -> Interval:
    """One refresh function, timed from submission to acknowledged commit, and recorded
    (and, with ``sets``, its completion committed to the database's bookkeeping)."""
    phase, stream, _ = where
    ctx.journal.event(
        f"{kind}_start", run=run.number, phase=phase, stream=stream, update_set=data.number
    )
    interval = _timed_rf(ctx, session, kind, where, data)
    ctx.record(run, interval)
    if interval.status == "ok" and sets is not None:
        sets.applied(kind, data, interval.rows)
    if interval.status == "error":
        label = f"run {run.number} {phase} {kind.upper()} (update set {data.number})"
        ctx.add_problem(f"{label} failed: {interval.error}")
        if not connection_alive(session):
            raise ConnectionLostError(f"connection lost during {label}: {interval.error}")
    return interval


def reserve_set(ctx: RunContext, sets: UpdateSets, run: RunResult) -> UpdateSet:
    """Take the next update set (the counter is advanced before anything is applied)."""
    number = sets.reserve()
    with ctx.lock:
        run.update_sets.append(number)
    ctx.journal.event("update_set_reserved", run=run.number, update_set=number)
    return sets.get(number)


def refresh_stream(
    ctx: RunContext, sets: UpdateSets, run: RunResult, phase: Phase, pairs: int
) -> None:
    """The throughput test's refresh stream: ``pairs`` RF1/RF2 pairs, one after the other."""
    session = ctx.open_session()
    try:
        for pair in range(1, pairs + 1):
            if ctx.stop.is_set():
                return
            data = reserve_set(ctx, sets, run)
            rf1 = run_refresh(ctx, session, run, "rf1", (phase, pair, pair), data, sets)
            if ctx.stop.is_set():
                return
            if rf1.status != "ok":  # never RF2 for a set whose RF1 did not complete
                skipped_rf2(ctx, run, data)
                return
            rf2 = run_refresh(ctx, session, run, "rf2", (phase, pair, pair), data, sets)
            if rf2.status != "ok":
                return
            ctx.progress.refresh_pair_done(rf1.status == "ok" and rf2.status == "ok")
    finally:
        ctx.close_session(session)


def skipped_rf2(ctx: RunContext, run: RunResult, data: UpdateSet) -> None:
    ctx.add_problem(
        f"run {run.number}: RF2 of update set {data.number} was not run because its RF1 did "
        "not complete; the next run undoes what RF1 committed"
    )
