"""Cold and hot passes of a study: the 22 queries again after the performance runs.

A pass runs the 22 queries with the validation defaults on one session, each timed like a
stream's query (setup, every row, teardown). A cold pass comes right after the engine was
reopened (:meth:`Engine.reopen`: an embedded file database closed and opened again, a
server restarted by the command its URL names, PostgreSQL's ``restart``; the benchmark
lock the restart ended taken again by :func:`drivers.lifecycle.relock`) and the
operating system's page cache dropped where the kit may (``DBBENCH_DROP_CACHES=1``, root,
``/proc/sys/vm/drop_caches`` writable), recorded either way; an engine the kit cannot
reopen (a server without a restart command, an in-memory engine) or whose restart fails
makes the passes "warm only" (the failure in the note), and
no pass claims to be cold. Hot passes follow in a row.
These are a study's measurements: the TPC-H runs before them are untouched.
"""

from __future__ import annotations

import os
from pathlib import Path

from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.lifecycle import relock
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.streams import run_rendered
from dbbench.queries.order import QUERY_NUMBERS
from dbbench.queries.params import default_parameters
from dbbench.queries.render import render
from dbbench.reports.tpch.model import Passes, QueryPass

DROP_CACHES = Path("/proc/sys/vm/drop_caches")
#: Dropping the page cache slows every process of the machine for a while: only where the
#: user allows it (``DBBENCH_DROP_CACHES=1``), never by default on a shared machine.
ALLOW_DROP = "DBBENCH_DROP_CACHES"


def drop_page_cache(path: Path = DROP_CACHES) -> str:
    """Write back dirty pages, then drop the page cache: ``"dropped"``, or why not."""
    if os.environ.get(ALLOW_DROP) != "1":
        return f"not dropped: not allowed ({ALLOW_DROP}=1 allows it)"
    if os.geteuid() != 0:
        return "not dropped: not root"
    try:
        os.sync()
        path.write_text("3\n")
    except OSError as exc:
        return f"not dropped: {one_line(exc)}"
    return "dropped"


def query_passes(ctx: RunContext, *, cold: bool, repetitions: int) -> Passes:
    """``repetitions`` cold passes (when ``cold``), each after a reopen, then
    ``repetitions`` hot passes."""
    passes = Passes(cold="off")
    if cold:
        _cold_passes(ctx, passes, repetitions)
    for number in range(1, repetitions + 1):
        passes.passes.append(_one_pass(ctx, "hot", number))
    return passes


def _cold_passes(ctx: RunContext, passes: Passes, repetitions: int) -> None:
    """Each cold pass right after a reopen; the passes stay "warm only" (and none is
    cold) where the engine cannot be reopened or its first restart fails. A later restart
    that fails ends the cold passes there, the ones before it kept: each was cold."""
    failed = ""
    for number in range(1, repetitions + 1):
        try:
            reopened = ctx.engine.reopen()
            if reopened:  # a restart ends the session that held the benchmark lock
                relock(ctx.engine)
        except DriversError as exc:
            failed = one_line(exc)
            ctx.journal.event("reopen_failed", error=failed)
            break
        if not reopened:
            failed = f"{ctx.engine.name}: the kit cannot restart or reopen it"
            break
        page_cache = drop_page_cache()
        done = _one_pass(ctx, "cold", number)
        done.reopened, done.page_cache = True, page_cache
        passes.passes.append(done)
    if not passes.passes:
        passes.cold, passes.note = "warm only", f"{failed}: every pass is warm"
        return
    passes.cold = "cold"
    caches = "; ".join(sorted({p.page_cache for p in passes.passes}))
    passes.note = f"engine restarted or reopened before each cold pass; page cache {caches}"
    if failed:
        passes.note += f"; {len(passes.passes)} cold passes only: {failed}"


def _one_pass(ctx: RunContext, kind: str, number: int) -> QueryPass:
    done = QueryPass("cold" if kind == "cold" else "hot", number)
    params = default_parameters(ctx.options.sf)
    ctx.journal.event("pass_start", kind=kind, number=number)
    session = ctx.open_session()
    try:
        for q in QUERY_NUMBERS:
            rendered = render(q, params[q], dialect=ctx.engine.dialect, stream=0)
            start = ctx.clock.mono()
            try:
                run_rendered(session, rendered)
            except Exception as exc:  # recorded; the other queries still run
                done.errors[f"Q{q}"] = one_line(exc)
                ctx.add_problem(f"{kind} pass {number} Q{q} error: {one_line(exc)}")
                continue
            done.seconds[f"Q{q}"] = ctx.clock.mono() - start
    finally:
        ctx.close_session(session)
    ctx.journal.event("pass_end", kind=kind, number=number, seconds=done.seconds)
    return done
