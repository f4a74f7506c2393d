"""A query stream: the 22 queries of one stream, in Appendix-A order, on one session.

The timing interval of a query (clause 5.3.7) runs from the submission of its first
statement (a Q15 view is part of it) to the last row fetched and its teardown done. A
failing or timed-out query is recorded with its error and the stream goes on, unless the
connection itself is gone: then the whole run stops.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from dbbench.drivers.engine import QueryOutput, Session
from dbbench.drivers.errors import ConnectionLostError, one_line
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.watchdog import Watchdog
from dbbench.queries.order import stream_order
from dbbench.queries.render import RenderedQuery, render
from dbbench.reports.tpch.model import Interval, Phase, RunResult, Status


def run_rendered(session: Session, rendered: RenderedQuery) -> QueryOutput:
    """Run setup, query (every row fetched) and teardown: the kit's one statement runner
    (streams time it; ``dbbench validate`` checks its rows). The teardown runs even on error
    so a failed Q15 does not leave its view behind for the next run."""
    try:
        for sql in rendered.setup:
            session.execute(sql)
        return session.query(rendered.query)
    finally:
        for sql in rendered.teardown:
            # the query's own error, if any, is the one to report
            with contextlib.suppress(Exception):
                session.execute(sql)


def connection_alive(session: Session) -> bool:
    """Whether the session still answers; a failed query on a live connection is not fatal."""
    try:
        session.query("SELECT 1")
    except Exception:
        return False
    return True


def timed_query(
    ctx: RunContext,
    session: Session,
    watchdog: Watchdog,
    rendered: RenderedQuery,
    where: tuple[Phase, int, int, int],
    keep: Callable[[QueryOutput], None] | None = None,
) -> Interval:
    """One query's interval; ``where`` is (phase, stream, position, query number). ``keep``
    gets the output of a query that completed, after its interval is measured."""
    phase, stream, position, query = where
    status: Status = "ok"
    rows: int | None = None
    error: str | None = None
    output: QueryOutput | None = None
    watchdog.arm()
    start = ctx.clock.mono()
    try:
        output = run_rendered(session, rendered)
        rows = len(output.rows)
    except Exception as exc:
        status, error = "error", one_line(exc)
    end = ctx.clock.mono()
    if watchdog.disarm():
        status = "timeout"
        error = f"exceeded --query-timeout {ctx.options.query_timeout:g} s" + (
            f" ({error})" if error else ""
        )
    elif status == "error" and ctx.stop.is_set():
        status = "cancelled"
    if keep is not None and output is not None and status == "ok":
        keep(output)
    return ctx.interval(
        "query", (phase, stream, position), start, end,
        status=status, query=query, rows=rows, error=error,
    )  # fmt: skip


def run_query_stream(
    ctx: RunContext,
    run: RunResult,
    phase: Phase,
    stream: int,
    params: dict[int, list[str]],
) -> None:
    """Run the stream's 22 queries on a session of its own; intervals go into ``run``."""
    session = ctx.open_session()
    watchdog = Watchdog(session, ctx.options.query_timeout, ctx.engine.capabilities.cancel)
    try:
        for position, query in enumerate(stream_order(stream), start=1):
            if ctx.stop.is_set():
                return
            rendered = render(
                query, params[query], dialect=ctx.engine.dialect, stream=stream,
                view_suffix=ctx.view_suffix(run.number),
            )  # fmt: skip
            ctx.journal.event(
                "query_start", run=run.number, phase=phase, stream=stream,
                position=position, query=query,
            )  # fmt: skip
            keep = None
            if ctx.answers is not None:
                keep = _keeper(ctx, run.number, stream, query)
            interval = timed_query(
                ctx, session, watchdog, rendered, (phase, stream, position, query), keep
            )
            ctx.record(run, interval)
            ctx.progress.query_done(stream, interval.status == "ok")
            if interval.status in ("error", "timeout"):
                _after_failure(ctx, session, run, interval)
    finally:
        watchdog.close()
        ctx.close_session(session)


def _keeper(ctx: RunContext, run: int, stream: int, query: int) -> Callable[[QueryOutput], None]:
    answers = ctx.answers
    assert answers is not None
    return lambda output: answers.keep(run, stream, query, output.columns, output.rows)


def _after_failure(ctx: RunContext, session: Session, run: RunResult, interval: Interval) -> None:
    label = f"run {run.number} {interval.phase} stream {interval.stream} Q{interval.query}"
    ctx.add_problem(f"{label} {interval.status}: {interval.error}")
    if not ctx.stop.is_set() and not connection_alive(session):
        raise ConnectionLostError(f"connection lost during {label}: {interval.error}")
