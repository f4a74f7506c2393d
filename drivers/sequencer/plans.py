"""Query plans: the plan of every query as it ran, captured after the measured work.

For each run, stream and query, the same rendered SQL with the same parameters (Q15 with
its view set up and dropped around it) goes to the engine's :meth:`Session.explain` —
after the last performance run, never inside a timed interval. ``--plans analyze`` makes
this an extra untimed pass that executes every query. The texts go to the run directory's
``plans.jsonl.gz``; the result keeps each plan's hash and its shape (the hash of the text
without literals, numbers and the run's view token: two runs with other parameters and
the same plan have the same shape). A failed EXPLAIN is recorded for that plan only: plans
are not measurements, the run stays valid.

What it costs a run (``benchmarks/plans_overhead.py``): an EXPLAIN is the engine's
planning, a millisecond or two per query, and this process's handling of the text. A
server (an engine with ``facts.server_processes``) plans in its own processes while this
one waits on the round trip: a plain EXPLAIN capture spreads its queries over up to
:data:`MAX_SESSIONS` sessions there. An engine in this process plans on this process's
CPU: one that plans without holding the GIL (``facts.plans_off_gil``, DuckDB) gets one
session per core, up to :data:`MAX_SESSIONS` (measured on DuckDB SF 1, 66 plans, on a
2-core machine at load average 20 to 40: the same 0.2 s of CPU on one, two or four
sessions; median wall 0.54 to 1.0 s on one session, 0.40 to 0.48 s on two: the run's own
queries use every core, a single session used one); any other gets one.
Each session has one watchdog (not a thread per query); the file and the records keep
stream order whichever session finished first: the same plans make the same bytes. Where
DDL is transactional (``facts.transactional_ddl``, DuckDB) Q15's view is created in a
transaction that is rolled back, not committed and dropped (DuckDB SF 1: 19 ms instead of
51 for a run's three Q15 plans, load average 44).
``analyze`` executes every query: one session, one query at a time, so that an executed
plan's timings are the query's alone. Rendered SQL is not deduplicated: every stream has
parameters of its own (and Q15 its own view), so identical texts are rare.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import queue
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from dbbench.drivers.engine import Session
from dbbench.drivers.errors import one_line
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.streams import connection_alive
from dbbench.drivers.sequencer.watchdog import Watchdog
from dbbench.drivers.sequencer.workers import run_workers
from dbbench.queries.order import stream_order
from dbbench.queries.render import RenderedQuery, render
from dbbench.reports import safeio
from dbbench.reports.tpch.model import PlanMode, PlanRecord, Plans, RunResult, plan_shape

#: Sessions explaining at once on a server, at most (an in-process engine gets one).
MAX_SESSIONS = 4


@dataclass
class _Item:
    """One query of one stream of one run; its record and plan-file line once explained."""

    run: int
    stream: int
    query: int
    rendered: RenderedQuery
    record: PlanRecord | None = None
    line: str = ""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def capture_plans(ctx: RunContext, runs: list[RunResult], out_dir: Path, mode: PlanMode) -> Plans:
    """Explain every query of every stream of ``runs`` on sessions of their own; write the
    texts to the plan file and return what the result keeps."""
    plans = Plans(mode=mode)
    start = time.monotonic()
    ctx.journal.event("plans_start", mode=mode)
    items = [
        _Item(run.number, stream, query, render(
            query, params[str(query)], dialect=ctx.engine.dialect, stream=stream,
            view_suffix=ctx.view_suffix(run.number),
        ))
        for run in runs
        for stream, params in sorted((int(k), v) for k, v in run.params.items())
        for query in stream_order(stream)
    ]  # fmt: skip
    analyze = mode == "analyze"
    sessions = _sessions(ctx, len(items), analyze=analyze)
    todo: queue.SimpleQueue[_Item] = queue.SimpleQueue()
    for item in items:
        todo.put(item)
    if sessions > 1:
        task = partial(_explain_items, ctx, todo, analyze)
        run_workers(ctx, [(f"plans-{i}", task) for i in range(sessions)])
    else:
        _explain_items(ctx, todo, analyze)
    done = [item for item in items if item.record is not None]  # stream order, as rendered
    plans.records = [item.record for item in done if item.record is not None]
    _write(out_dir / plans.file, [item.line for item in done])
    plans.seconds = time.monotonic() - start
    failed = sum(r.error is not None for r in plans.records)
    ctx.journal.event(
        "plans_end", plans=len(plans.records), failed=failed, seconds=plans.seconds,
        sessions=sessions,
    )  # fmt: skip
    return plans


def _sessions(ctx: RunContext, items: int, *, analyze: bool) -> int:
    """How many sessions explain at once: one for ``analyze`` (an executed plan's timings
    are its query's alone) and for an engine that plans in this process under the GIL; up
    to :data:`MAX_SESSIONS` on a server, up to one per core for an engine that plans
    without the GIL."""
    facts = ctx.engine.facts
    if analyze:
        most = 1
    elif facts.server_processes:
        most = MAX_SESSIONS
    elif facts.plans_off_gil:
        most = min(MAX_SESSIONS, os.cpu_count() or 1)
    else:
        most = 1
    return max(1, min(items, most))


def _explain_items(ctx: RunContext, todo: queue.SimpleQueue[_Item], analyze: bool) -> None:
    """Take queries off ``todo`` until it is empty, on one session and its watchdog."""
    facts = ctx.engine.facts
    begin = facts.begin if facts.transactional_ddl else None
    session = ctx.open_session()
    watchdog = _watchdog(ctx, session)
    try:
        while not ctx.stop.is_set():
            try:
                item = todo.get_nowait()
            except queue.Empty:
                return
            text, error = _explain(session, watchdog, item.rendered, analyze, begin)
            if error is not None and not connection_alive(session):
                watchdog.close()
                ctx.close_session(session)
                session = ctx.open_session()
                watchdog = _watchdog(ctx, session)
            _keep(item, text, error)
    finally:
        watchdog.close()
        ctx.close_session(session)


def _watchdog(ctx: RunContext, session: Session) -> Watchdog:
    return Watchdog(session, ctx.options.query_timeout, ctx.engine.capabilities.cancel)


def _keep(item: _Item, text: str | None, error: str | None) -> None:
    record = PlanRecord(item.run, item.stream, item.query, error=error)
    if text is not None:
        record.sha256 = _digest(text)
        record.shape = _digest(plan_shape(text))
    item.record = record
    entry = {"run": item.run, "stream": item.stream, "query": item.query}
    item.line = json.dumps(entry | {"text": text, "error": error}, ensure_ascii=False)


def _explain(
    session: Session, watchdog: Watchdog, rendered: RenderedQuery, analyze: bool, begin: str | None
) -> tuple[str | None, str | None]:
    """(plan text, None) or (None, the error in one line); the teardown runs either way.
    ``begin``: the engine's DDL is transactional, so a setup (Q15's view) goes inside a
    transaction rolled back afterwards instead of a committed CREATE and DROP."""
    scratch = begin is not None and bool(rendered.setup)
    watchdog.arm()
    try:
        if scratch:
            session.execute(str(begin))
        for sql in rendered.setup:
            session.execute(sql)
        return session.explain(rendered.query, analyze), None
    except Exception as exc:
        return None, one_line(exc)
    finally:
        watchdog.disarm()
        for sql in ["ROLLBACK"] if scratch else rendered.teardown:
            with contextlib.suppress(Exception):
                session.execute(sql)


def _write(path: Path, lines: list[str]) -> None:
    buffer = io.BytesIO()
    # mtime 0: the same plans make the same bytes
    # zlib's usual level 6: a third of level 9's time for a few per cent more bytes
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8") if lines else b"")
    safeio.write_bytes(path, buffer.getvalue())
