"""The two tests of a performance run: the power test and the throughput test (clause 5.3).

Power test: RF1, stream 0's 22 queries, RF2, one after the other on one query session and
one refresh session. Throughput test: S query streams in parallel, each on its own session,
plus one refresh stream running S RF1/RF2 pairs. Ts runs from the first submission of any
of them to the last row or commit acknowledged (clause 5.3.6).
"""

from __future__ import annotations

from functools import partial

from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.progress import REFRESH_SETS
from dbbench.drivers.sequencer.refresh import (
    UpdateSets,
    refresh_stream,
    reserve_set,
    run_refresh,
    skipped_rf2,
)
from dbbench.drivers.sequencer.streams import run_query_stream
from dbbench.drivers.sequencer.workers import run_workers
from dbbench.queries.params import stream_parameters
from dbbench.reports.tpch.model import Phase, RunResult

QUERIES_PER_STREAM = 22


def stream_params(ctx: RunContext, run: RunResult, stream: int) -> dict[int, list[str]]:
    """The stream's substitution parameters (seed0 + s), recorded in the result."""
    seed = run.seeds[str(stream)]
    params = stream_parameters(seed, ctx.options.sf)
    run.params[str(stream)] = {str(q): list(v) for q, v in sorted(params.items())}
    return params


def _span(run: RunResult, phase: Phase) -> tuple[float | None, float | None]:
    """First submission and last acknowledgement among a phase's intervals."""
    intervals = [i for i in run.intervals if i.phase == phase]
    if not intervals:
        return None, None
    return min(i.start for i in intervals), max(i.end for i in intervals)


def power_test(ctx: RunContext, sets: UpdateSets, run: RunResult) -> None:
    """RF1, the 22 queries of stream 0 in Appendix-A order, RF2."""
    params = stream_params(ctx, run, 0)
    ctx.progress.start_phase(f"run {run.number} {REFRESH_SETS}", [], 0, 0)
    sets.prefetch(1)
    ctx.progress.start_phase(f"run {run.number} power", [0], QUERIES_PER_STREAM, 1)
    ctx.journal.event("phase_start", run=run.number, phase="power", seed=run.seeds["0"])

    def power_stream() -> None:
        session = ctx.open_session()  # the refresh session; the queries get their own
        try:
            data = reserve_set(ctx, sets, run)
            rf1 = run_refresh(ctx, session, run, "rf1", ("power", 0, 1), data, sets)
            run_query_stream(ctx, run, "power", 0, params)
            if ctx.stop.is_set():
                return
            if rf1.status != "ok":  # never RF2 for a set whose RF1 did not complete
                skipped_rf2(ctx, run, data)
                ctx.progress.refresh_pair_done(False)
                return
            rf2 = run_refresh(ctx, session, run, "rf2", ("power", 0, 1), data, sets)
            ctx.progress.refresh_pair_done(rf1.status == "ok" and rf2.status == "ok")
        finally:
            ctx.close_session(session)

    try:
        run_workers(ctx, [("power", power_stream)])
    finally:
        run.power_start, run.power_end = _span(run, "power")
        ctx.journal.event("phase_end", run=run.number, phase="power")
        ctx.journal.sync()


def throughput_test(ctx: RunContext, sets: UpdateSets, run: RunResult) -> None:
    """S query streams and one refresh stream of S pairs, all at once."""
    streams = list(range(1, ctx.options.streams + 1))
    params = {s: stream_params(ctx, run, s) for s in streams}
    ctx.progress.start_phase(f"run {run.number} {REFRESH_SETS}", [], 0, 0)
    sets.prefetch(len(streams))
    ctx.progress.start_phase(
        f"run {run.number} throughput", streams, QUERIES_PER_STREAM * len(streams), len(streams)
    )
    ctx.journal.event("phase_start", run=run.number, phase="throughput", streams=len(streams))
    tasks = [
        (f"stream-{s}", partial(run_query_stream, ctx, run, "throughput", s, params[s]))
        for s in streams
    ]
    tasks.append(("refresh", partial(refresh_stream, ctx, sets, run, "throughput", len(streams))))
    try:
        run_workers(ctx, tasks)
    finally:
        run.throughput_start, run.throughput_end = _span(run, "throughput")
        ctx.journal.event("phase_end", run=run.number, phase="throughput")
        ctx.journal.sync()
