"""``dbbench verify RUN --answers``: every kept output checked by value against a reference
engine brought to the state the query saw (issue 35).

The reference is loaded fresh at the run's scale factor; the run's refresh functions are
replayed on it in the order they ran (the same update sets), and each query runs there with
the substitution parameters the run recorded. A query is checked against the state of the
refresh functions that had ended before it started, and only when none ran while it ran:
a power-test query sees its run's RF1; a throughput query that ran before the first pair or
after the last (or between two refresh functions) is checked at that state. One that
overlapped a refresh function is counted "overlapped RFn, not checked", never passed; one
after a refresh function that failed is not checked either (its state is unknown). The
comparison is ``queries.validate.compare_results`` (the spec's column classes); a kept output
whose digest is no longer the one the result recorded is a disagreement too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import load_database
from dbbench.drivers.sequencer.answers import KeptOutput, read_outputs
from dbbench.drivers.sequencer.refresh import generate_update_set
from dbbench.drivers.sequencer.streams import run_rendered
from dbbench.queries.render import render
from dbbench.queries.validate import answer_digest, compare_results
from dbbench.reports.tpch.model import AnswerCheck, BenchmarkResult, Interval

#: Lines of disagreement the result keeps (every one is printed).
MAX_LINES = 100


@dataclass(frozen=True)
class _Refresh:
    """One refresh function as it ran: its place in the run's order and its interval."""

    run: int
    interval: Interval

    @property
    def name(self) -> str:
        return f"{self.interval.kind.upper()} (update set {self.interval.update_set})"


@dataclass
class _Plan:
    """Which kept outputs are checked at which state (refresh functions applied)."""

    at_state: dict[int, list[KeptOutput]] = field(default_factory=dict)
    not_checked: list[str] = field(default_factory=list)


def _refreshes(result: BenchmarkResult) -> list[_Refresh]:
    found = [
        _Refresh(run.number, i)
        for run in result.runs
        for i in run.intervals
        if i.kind in ("rf1", "rf2")
    ]
    return sorted(found, key=lambda r: r.interval.start)


def _plan(result: BenchmarkResult, outputs: list[KeptOutput], rfs: list[_Refresh]) -> _Plan:
    intervals = {
        (run.number, i.stream, i.query): i
        for run in result.runs
        for i in run.intervals
        if i.kind == "query" and i.status == "ok"
    }
    plan = _Plan()
    for out in outputs:
        label = f"run {out.run} stream {out.stream} Q{out.query}"
        q = intervals.get((out.run, out.stream, out.query))
        if q is None:
            plan.not_checked.append(f"{label}: no measured interval, not checked")
            continue
        overlap = next(
            (r for r in rfs if r.interval.start < q.end and r.interval.end > q.start), None
        )
        if overlap is not None:
            plan.not_checked.append(f"{label}: overlapped {overlap.name}, not checked")
            continue
        before = [r for r in rfs if r.interval.end <= q.start]
        failed = next((r for r in before if r.interval.status != "ok"), None)
        if failed is not None:
            plan.not_checked.append(f"{label}: after the failed {failed.name}, not checked")
            continue
        plan.at_state.setdefault(len(before), []).append(out)
    return plan


def _apply(session: Session, sf: float, rf: Interval) -> None:
    assert rf.update_set is not None
    data = generate_update_set(sf, rf.update_set)
    if rf.kind == "rf1":
        session.refresh_insert(data.orders, data.lineitem)
    else:
        session.refresh_delete(data.delete_keys)


def check_answers(
    result: BenchmarkResult,
    run_dir: Path,
    reference: Engine,
    label: str,
    say: Callable[[str], None] = lambda line: None,
) -> tuple[AnswerCheck, list[str]]:
    """Check every kept output of the run in ``run_dir`` on ``reference`` (loaded afresh);
    the verdict and one line per disagreement (then per output not checked)."""
    if result.answers is None or not result.answers.kept:
        why = "kept none (--no-answers)" if result.answers else "predates kept answers"
        raise DriversError(f"{run_dir}: this run {why}; nothing to verify")
    digests = {(r.run, r.stream, r.query): r.sha256 for r in result.answers.records}
    outputs = list(read_outputs(run_dir / result.answers.file))
    rfs = _refreshes(result)
    plan = _plan(result, outputs, rfs)
    sf = result.scale_factor
    check = AnswerCheck(reference=label, total=len(outputs), created=time.time())
    check.not_checked = len(plan.not_checked)
    lines: list[str] = []
    first_set = min((r.interval.update_set or 1 for r in rfs), default=1)
    say(f"loading SF {sf:g} into {label} ...")
    load_database(reference, sf)
    params = {run.number: run.params for run in result.runs}
    session = reference.session()
    try:
        for number in range(1, first_set):  # sets earlier invocations applied in full
            data = generate_update_set(sf, number)
            session.refresh_insert(data.orders, data.lineitem)
            session.refresh_delete(data.delete_keys)
        applied = 0
        for state in sorted(plan.at_state):
            for rf in rfs[applied:state]:
                _apply(session, sf, rf.interval)
            applied = state
            for out in plan.at_state[state]:
                where = f"run {out.run} stream {out.stream} Q{out.query}"
                values = params[out.run][str(out.stream)][str(out.query)]
                rendered = render(
                    out.query, values, dialect=reference.dialect, stream=out.stream,
                    view_suffix="_verify",
                )  # fmt: skip
                expected = run_rendered(session, rendered)
                check.checked += 1
                verdict = compare_results(out.query, expected.rows, out.rows)
                problem = None if verdict.passed else verdict.first_mismatch
                if problem is None and answer_digest(out.query, out.rows) != digests.get(
                    (out.run, out.stream, out.query)
                ):
                    problem = "the kept rows are not those the result's digest names (edited?)"
                if problem is not None:
                    check.disagree += 1
                    lines.append(f"{where}: {problem}")
    finally:
        session.close()
    check.lines = lines[:MAX_LINES]
    return check, lines + plan.not_checked
