"""Atomicity (3.2.2), consistency (3.3.2) and isolation tests 1-5 (3.4.2), each on
separate sessions in an order the kit controls. A wait is detected by a bounded timeout
(:data:`WAIT_SECONDS`), an abort by the engine's error; both are legal where 3.4.2 allows."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from datetime import UTC, datetime
from typing import Any, TypeVar

from dbbench.drivers.acid.transaction import (
    Applied,
    acid_query,
    acid_transaction,
    history_rows,
    inconsistent,
    last_line,
    read_line,
    read_total,
    trunc,
)
from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import DriversError
from dbbench.queries.render import render
from dbbench.reports.acid.model import AcidCheck

T = TypeVar("T")

#: how long a second session is given before the kit calls it waiting
WAIT_SECONDS = 2.0


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


def begin(engine: Engine, session: Session) -> None:
    session.execute(engine.facts.begin)


def rollback(session: Session) -> None:
    with suppress(DriversError):
        session.execute("ROLLBACK")


def _end_pair(pool: ThreadPoolExecutor, s1: Session, s2: Session) -> None:
    """An isolation test's two sessions rolled back and closed once its pool's work ended."""
    rollback(s1)
    rollback(s2)
    pool.shutdown(wait=True)
    s1.close()
    s2.close()


class Checks:
    """The tests over one engine, with orders drawn from ``orders`` (existing keys)."""

    def __init__(
        self,
        engine: Engine,
        orders: list[int],
        seed: int = 1,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.orders = orders
        self.lock = engine.facts.lock_read
        #: told how far the consistency streams are (their first commit, each quarter)
        self.progress = progress or (lambda _line: None)

    def pick(self) -> tuple[int, int, int]:
        o_key = self.rng.choice(self.orders)
        with self._session() as s:
            return o_key, last_line(s, o_key), self.rng.randint(1, 100)

    def _session(self) -> Any:
        engine = self.engine

        class _Open:
            def __enter__(self) -> Session:
                self.s = engine.session()
                return self.s

            def __exit__(self, *exc: object) -> None:
                self.s.close()

        return _Open()

    def timed(self, name: str, body: Callable[[AcidCheck], None]) -> AcidCheck:
        check = AcidCheck(name=name, verdict="passed")
        start = time.perf_counter()
        try:
            body(check)
        except DriversError as exc:
            check.verdict, check.message = "failed", f"{check.steps[-1:] or ['start']}: {exc}"
        check.seconds = time.perf_counter() - start
        return check

    # -- atomicity --------------------------------------------------------------------
    def atomicity(self, commit: bool) -> AcidCheck:
        def body(check: AcidCheck) -> None:
            o, l_key, delta = self.pick()
            check.inputs = {"o_key": o, "l_key": l_key, "delta": delta}
            with self._session() as s:
                begin(self.engine, s)
                applied = acid_transaction(s, o, l_key, delta, now(), self.lock)
                s.execute("COMMIT" if commit else "ROLLBACK")
                check.steps.append("txn: ACID Transaction, " + ("COMMIT" if commit else "ROLLBACK"))
                total, line = read_total(s, o), read_line(s, o, l_key)
                hist = history_rows(s, o, l_key, delta)
            want_total = applied.new_total if commit else applied.old_total
            want_price = applied.new_extprice if commit else applied.old_line.extprice
            check.observed = {
                "o_totalprice": str(total),
                "l_extendedprice": str(line.extprice),
                "history_rows": str(hist),
            }
            check.expected = {
                "o_totalprice": str(want_total),
                "l_extendedprice": str(want_price),
                "history_rows": "1" if commit else "0",
            }
            if check.observed != check.expected:
                check.verdict = "failed"
                end = "COMMIT" if commit else "ROLLBACK"
                check.message = f"after {end}: read {check.observed}, expected {check.expected}"

        name = "atomicity-commit" if commit else "atomicity-rollback"
        return self.timed(name, body)

    # -- consistency ------------------------------------------------------------------
    def consistency(self, streams: int, per_stream: int) -> AcidCheck:
        def body(check: AcidCheck) -> None:
            sample = self.rng.sample(self.orders, min(10, len(self.orders)))
            check.inputs = {
                "streams": streams,
                "transactions_per_stream": per_stream,
                "orders_checked": len(sample),
            }
            with self._session() as s:
                bad = inconsistent(s, sample)
            check.steps.append(f"condition checked on {len(sample)} orders before")
            touched: set[int] = set()
            errors: list[str] = []
            lock = threading.Lock()
            total, committed = streams * per_stream, [0]
            marks = {1, *(total * q // 4 for q in (1, 2, 3, 4))}

            def counted() -> None:
                """One more commit (under ``lock``); the first and each quarter are said."""
                committed[0] += 1
                if committed[0] in marks:
                    self.progress(
                        f"consistency: {committed[0]} of {total} ACID Transactions committed"
                    )

            stop = threading.Event()  # Ctrl-C: each stream ends after its transaction

            def stream(k: int) -> None:
                rng = random.Random(1000 + k)
                with self._session() as s:
                    for _ in range(per_stream):
                        if stop.is_set():
                            return
                        o = rng.choice(self.orders)
                        for _attempt in range(20):  # an abort (a conflict) is retried
                            try:
                                begin(self.engine, s)
                                acid_transaction(
                                    s, o, last_line(s, o), rng.randint(1, 100), now(), self.lock
                                )
                                s.execute("COMMIT")
                                with lock:
                                    counted()
                                break
                            except DriversError as exc:
                                rollback(s)
                                last = str(exc)
                        else:
                            with lock:
                                errors.append(f"stream {k}: {last}")
                        with lock:
                            touched.add(o)

            threads = [threading.Thread(target=stream, args=(k,)) for k in range(streams)]
            for t in threads:
                t.start()
            try:
                for t in threads:
                    t.join()
            except BaseException:
                stop.set()  # no stream may commit once the cleanup undoes their work
                for t in threads:
                    t.join()
                raise
            check.steps.append(f"{streams} streams x {per_stream} ACID Transactions committed")
            with self._session() as s:
                bad += inconsistent(s, sorted(touched | set(sample)))
            check.steps.append(f"condition re-checked on {len(touched | set(sample))} orders")
            check.observed = {
                "inconsistent_orders": str(len(bad)),
                "failed_streams": str(len(errors)),
            }
            check.expected = {"inconsistent_orders": "0", "failed_streams": "0"}
            if bad or errors:
                check.verdict = "failed"
                check.message = "; ".join((bad + errors)[:3])

        return self.timed("consistency", body)

    # -- isolation ----------------------------------------------------------------------
    def isolation(self, number: int) -> AcidCheck:
        tests = {
            1: self._iso_read,
            2: self._iso_read,
            3: self._iso_write,
            4: self._iso_write,
            5: self._iso_partsupp,
            6: self._iso_q1,
        }
        return self.timed(f"isolation-{number}", lambda c: tests[number](c, number))

    def _iso_read(self, check: AcidCheck, number: int) -> None:
        commit = number == 1
        o, l_key, delta = self.pick()
        check.inputs = {"o_key": o, "l_key": l_key, "delta": delta}
        s1, s2 = self.engine.session(), self.engine.session()
        pool = ThreadPoolExecutor(1)
        try:
            begin(self.engine, s1)
            applied = acid_transaction(s1, o, l_key, delta, now(), self.lock)
            check.steps.append("txn1: ACID Transaction, suspended before COMMIT")
            future = pool.submit(acid_query, s2, o)
            check.steps.append("txn2: ACID Query on the same order")
            seen = _within(future)
            before = applied.old_total
            if seen is not None and seen != before:
                check.verdict = "failed"
                check.message = (
                    f"step txn2 (ACID Query while txn1 is open) read {seen}: txn1's "
                    f"uncommitted update is visible (expected {before} or a wait)"
                )
            check.steps.append("txn2 " + ("waited" if seen is None else f"read {seen}"))
            s1.execute("COMMIT" if commit else "ROLLBACK")
            check.steps.append("txn1: " + ("COMMIT" if commit else "ROLLBACK"))
            final = future.result()
            with self._session() as s3:
                after = acid_query(s3, o)
            want = applied.new_total if commit else applied.old_total
            check.observed = {"txn2_read": str(final), "after": str(after)}
            check.expected = {
                "txn2_read": str(applied.old_total) + " or after txn1 ends",
                "after": str(want),
            }
            if after != want and check.verdict == "passed":
                check.verdict = "failed"
                check.message = f"after txn1's end the ACID Query reads {after}, expected {want}"
        finally:
            _end_pair(pool, s1, s2)

    def _iso_write(self, check: AcidCheck, number: int) -> None:
        commit = number == 3
        o, l_key, delta1 = self.pick()
        delta2 = delta1 % 100 + 1
        check.inputs = {"o_key": o, "l_key": l_key, "delta1": delta1, "delta2": delta2}
        s1, s2 = self.engine.session(), self.engine.session()
        pool = ThreadPoolExecutor(1)

        def txn2() -> str:
            try:
                begin(self.engine, s2)
                acid_transaction(s2, o, l_key, delta2, now(), self.lock)
                s2.execute("COMMIT")
                return "committed"
            except DriversError as exc:
                rollback(s2)
                return f"aborted: {exc}"

        try:
            begin(self.engine, s1)
            first = acid_transaction(s1, o, l_key, delta1, now(), self.lock)
            check.steps.append("txn1: ACID Transaction, suspended before COMMIT")
            future = pool.submit(txn2)
            check.steps.append("txn2: ACID Transaction on the same order and line")
            early = _within(future)
            if early == "committed":
                check.verdict = "failed"
                check.message = (
                    "step txn2 (ACID Transaction while txn1 is open) committed "
                    "without waiting or aborting"
                )
            check.steps.append("txn2 " + ("waited" if early is None else early.split(":")[0]))
            try:
                s1.execute("COMMIT" if commit else "ROLLBACK")
                check.steps.append("txn1: " + ("COMMIT" if commit else "ROLLBACK"))
                txn1 = "committed" if commit else "rolled back"
            except DriversError as exc:  # the engine chose txn1 as the victim
                rollback(s1)
                txn1 = f"aborted: {exc}"
                check.steps.append("txn1 aborted at COMMIT")
            outcome = future.result()
            check.steps.append("txn2 " + outcome.split(":")[0])
            with self._session() as s3:
                line = read_line(s3, o, l_key)
                total = read_total(s3, o)
            price = first.old_line.extprice
            applied = []
            if txn1 == "committed":
                price = first.new_extprice
                applied.append("txn1")
            if outcome == "committed":
                price = price + trunc(
                    trunc(
                        price / (first.old_line.quantity + (delta1 if txn1 == "committed" else 0))
                    )
                    * delta2
                )
                applied.append("txn2")
            check.observed = {"l_extendedprice": str(line.extprice), "o_totalprice": str(total)}
            check.expected = {
                "l_extendedprice": str(price),
                "applied": " then ".join(applied) or "none",
            }
            if line.extprice != price and check.verdict == "passed":
                check.verdict = "failed"
                check.message = (
                    f"final L_EXTENDEDPRICE {line.extprice}, expected {price} "
                    f"({' then '.join(applied) or 'nothing'} applied)"
                )
            with self._session() as s3:
                if check.verdict == "passed" and inconsistent(s3, [o]):
                    check.verdict, check.message = (
                        "failed",
                        f"order {o} inconsistent after the test",
                    )
        finally:
            _end_pair(pool, s1, s2)

    def _iso_q1(self, check: AcidCheck, number: int) -> None:
        """Test 6: an ACID Transaction submitted while Q1 (DELTA 0, its longest form)
        runs is not starved by a stream of queries: it completes before Txn1 or, if not,
        before a Txn3 (Q1 again) started while Txn1 was still running."""
        o, l_key, delta = self.pick()
        check.inputs = {"o_key": o, "l_key": l_key, "delta": delta, "q1_delta": [0, 90]}
        sessions = [self.engine.session() for _ in range(3)]
        pool = ThreadPoolExecutor(3)
        ends = _Ends()
        q1 = [render(1, [d], dialect=self.engine.dialect, stream=0).query for d in ("0", "90")]

        def txn2() -> Applied:
            begin(self.engine, sessions[1])
            applied = acid_transaction(sessions[1], o, l_key, delta, now(), self.lock)
            sessions[1].execute("COMMIT")
            return applied

        try:
            first = pool.submit(ends.run, "txn1", lambda: sessions[0].query(q1[0]))
            check.steps.append("txn1: Q1 with DELTA 0")
            second = pool.submit(ends.run, "txn2", txn2)
            check.steps.append("txn2: ACID Transaction submitted while txn1 runs")
            third = None
            done = _within(second)
            late = done is None or ends.at.get("txn2", 0) > ends.at.get("txn1", float("inf"))
            if late and not first.done():
                third = pool.submit(ends.run, "txn3", lambda: sessions[2].query(q1[1]))
                check.steps.append("txn3: Q1 with DELTA 90 while txn1 still runs")
            first.result()
            applied = second.result()
            if third is not None:
                third.result()
                if ends.at["txn2"] > ends.at["txn3"]:
                    check.verdict = "failed"
                    check.message = "step txn2 (ACID Transaction) ended after txn3: starved"
            order = sorted(ends.at, key=ends.at.__getitem__)
            check.steps.append("ended: " + ", ".join(order))
            with self._session() as s:
                total = read_total(s, o)
            check.observed = {"o_totalprice": str(total), "ended": " ".join(order)}
            check.expected = {"o_totalprice": str(applied.new_total)}
            if total != applied.new_total and check.verdict == "passed":
                check.verdict = "failed"
                check.message = f"txn2's update not visible after it committed: {total}"
        finally:
            for s in sessions:
                rollback(s)
            pool.shutdown(wait=True)
            for s in sessions:
                s.close()

    def _iso_partsupp(self, check: AcidCheck, number: int) -> None:
        o, l_key, delta = self.pick()
        s1, s2 = self.engine.session(), self.engine.session()
        pool = ThreadPoolExecutor(1)
        try:
            with self._session() as s:
                pk, sk = s.query(
                    "SELECT ps_partkey, ps_suppkey FROM partsupp "
                    f"WHERE ps_partkey = {self.rng.randint(1, 100)}"
                ).rows[0]
            check.inputs = {
                "o_key": o,
                "l_key": l_key,
                "delta": delta,
                "ps_partkey": pk,
                "ps_suppkey": sk,
            }
            begin(self.engine, s1)
            applied = acid_transaction(s1, o, l_key, delta, now(), self.lock)
            check.steps.append("txn1: ACID Transaction, suspended before COMMIT")
            future = pool.submit(
                lambda: (
                    s2.query(
                        f"SELECT * FROM partsupp WHERE ps_partkey = {pk} AND ps_suppkey = {sk}"
                    ).rows
                )
            )
            check.steps.append("txn2: reads PARTSUPP")
            if _within(future) is None:
                check.verdict = "failed"
                check.message = "step txn2 (PARTSUPP read while txn1 is open) did not complete"
            s1.execute("COMMIT")
            check.steps.append("txn1: COMMIT")
            future.result()
            with self._session() as s:
                total = read_total(s, o)
            check.observed = {"o_totalprice": str(total)}
            check.expected = {"o_totalprice": str(applied.new_total)}
            if total != applied.new_total and check.verdict == "passed":
                check.verdict, check.message = "failed", f"txn1's update not visible: {total}"
        finally:
            rollback(s1)
            pool.shutdown(wait=True)
            s1.close()
            s2.close()


class _Ends:
    """When each of isolation test 6's sessions ended (perf_counter)."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    def run(self, name: str, body: Callable[[], T]) -> T:
        try:
            return body()
        finally:
            self.at[name] = time.perf_counter()


def _within(future: Future[Any]) -> Any:
    """The future's value if it ends within :data:`WAIT_SECONDS`, else None (it waits)."""
    try:
        return future.result(timeout=WAIT_SECONDS)
    except TimeoutError:
        return None
