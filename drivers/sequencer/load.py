"""The load test (clause 4.3), or the checked reuse of a database loaded earlier.

The load test is timed from the first CREATE until the database is ready for the
performance test (keys, statistics, the kit's bookkeeping), generation included, since the
generator feeds the engine in line. Reusing a database skips that measurement, which the
compliance verdict then says.
"""

from __future__ import annotations

from dbbench.drivers.engine import STATE_REFRESH_PENDING, STATE_SCALE_FACTOR, Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.loader import check_loaded, load_database
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.refresh import repair_pending
from dbbench.reports.tpch.model import LoadResult


def load_test(ctx: RunContext) -> LoadResult:
    """Create, load and prepare the database; everything inside one timed interval."""
    ctx.journal.event("load_start", sf=ctx.options.sf)
    start = ctx.clock.mono()
    stats = load_database(ctx.engine, ctx.options.sf, jobs=ctx.options.jobs, progress=ctx.progress)
    end = ctx.clock.mono()
    result = LoadResult(
        start=ctx.clock.wall(start),
        end=ctx.clock.wall(end),
        seconds=end - start,
        rows=dict(stats.rows),
        steps={k: round(v, 6) for k, v in stats.seconds.items()},
    )
    ctx.journal.event("load_end", seconds=result.seconds, rows=result.rows, steps=result.steps)
    ctx.journal.sync()
    return result


def reuse(ctx: RunContext, notes: list[str] | None = None) -> LoadResult:
    """Check that the database holds this scale factor, loaded by dbbench, exactly as the
    load and the completed refresh pairs left it; refuse if not. A pair an earlier stop
    left half-applied is first repaired by key, and ``notes`` says so."""
    state = ctx.engine.read_state()
    if state.get(STATE_REFRESH_PENDING) and float(state.get(STATE_SCALE_FACTOR, "nan")) == (
        ctx.options.sf
    ):
        repaired = repair_pending(ctx.engine, ctx.options.sf)
        if repaired is not None:
            ctx.journal.event("refresh_repaired", what=repaired)
            if notes is not None:
                notes.append(repaired)
    check_loaded(ctx.engine, ctx.options.sf)
    now = ctx.clock.now()
    rows = ctx.engine.row_counts()
    ctx.journal.event("load_reused", rows=rows)
    return LoadResult(start=now, end=now, seconds=0.0, rows=rows, reused=True)


def load_or_reuse(ctx: RunContext, *, reload: bool, notes: list[str] | None = None) -> LoadResult:
    """Reuse the database when it is already loaded at this SF, unless ``reload``."""
    if not reload:
        try:
            return reuse(ctx, notes)
        except DriversError as exc:
            ctx.journal.event("load_needed", reason=str(exc))
    check_not_foreign(ctx.engine, ctx.options)
    return load_test(ctx)


def check_not_foreign(engine: Engine, options: RunOptions) -> None:
    """Refuse to load into a database that holds tables dbbench did not create (a URL's
    defaults may reach someone's own database), unless ``options.load_beside``."""
    foreign = [] if options.load_beside else engine.foreign_tables()
    if foreign:
        more = len(foreign) - 5
        shown = ", ".join(foreign[:5]) + (f" and {more} more" if more > 0 else "")
        where = engine.place() or "the database"
        raise DriversError(
            f"{where} holds {len(foreign)} table(s) dbbench did not create ({shown}): not "
            "loading into it (name a database of its own in the URL, or --force)"
        )
