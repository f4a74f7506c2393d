"""The streams side of a mixed run: ``S`` TPC-H query streams, each running its query sets
back to back until stopped, through the sequencer's own stream runner.

Each set is :func:`~dbbench.drivers.sequencer.streams.run_query_stream` as in the
throughput test (qgen-exact parameters, Appendix-A order, every interval in a
:class:`~reports.tpch.model.RunResult`, a failed or timed-out query recorded as a problem). Set
``k`` of stream ``s`` is stream number ``s + k * S`` (``reports.mixed.model``). With
``refresh``, one refresh stream runs ``S`` RF1/RF2 pairs beside them, as in the throughput
test. A stream that loses its connection stops every stream and calls ``on_fatal``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import one_line
from dbbench.drivers.journal import Journal
from dbbench.drivers.sequencer.config import RunOptions, check_options
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.phases import stream_params
from dbbench.drivers.sequencer.refresh import UpdateSets, refresh_stream
from dbbench.drivers.sequencer.streams import run_query_stream
from dbbench.drivers.signals import within
from dbbench.reports.tpch.model import RunResult

#: Seconds the streams get to return after their statements are cancelled.
GRACE_SECONDS = 10.0


class QueryStreams:
    """``options.streams`` query streams (and, with ``refresh``, one refresh stream) on
    threads of their own, recording into :attr:`run` (number ``number``)."""

    def __init__(
        self,
        engine: Engine,
        options: RunOptions,
        journal: Journal,
        *,
        number: int,
        seed0: int,
        refresh: bool = False,
        on_fatal: Callable[[str], None] | None = None,
    ) -> None:
        check_options(options)
        self.streams = options.streams
        self.ctx = RunContext(engine, options, journal)
        self.run = RunResult(number=number, streams=options.streams, seeds={})
        self.seed0 = seed0
        self.sets = UpdateSets(engine, options.sf) if refresh else None
        self.on_fatal = on_fatal
        self.fatal: str | None = None
        self._threads: list[threading.Thread] = []
        self._done: list[threading.Event] = []

    @property
    def problems(self) -> list[str]:
        """What made the streams' side invalid (failed, timed-out queries, a lost server)."""
        return list(self.ctx.problems)

    def start(self) -> None:
        tasks: list[tuple[str, Callable[[], None]]] = [
            (f"stream-{s}", partial(self._stream, s)) for s in range(1, self.streams + 1)
        ]
        if self.sets is not None:
            self.sets.prefetch(self.streams)
            tasks.append(("refresh", self._refresh))
        self.ctx.journal.event("mixed_streams_start", run=self.run.number, streams=self.streams)
        for name, task in tasks:
            done = threading.Event()
            thread = threading.Thread(
                target=self._guarded, args=(task, done), name=f"dbbench-mixed-{name}", daemon=True
            )
            self._threads.append(thread)
            self._done.append(done)
            thread.start()

    def _stream(self, s: int) -> None:
        k = 0
        while not self.ctx.stop.is_set():
            v = s + k * self.streams
            with self.ctx.lock:
                self.run.seeds[str(v)] = self.seed0 + v
            params = stream_params(self.ctx, self.run, v)
            run_query_stream(self.ctx, self.run, "throughput", v, params)
            k += 1

    def _refresh(self) -> None:
        assert self.sets is not None
        refresh_stream(self.ctx, self.sets, self.run, "throughput", self.streams)

    def _guarded(self, task: Callable[[], None], done: threading.Event) -> None:
        try:
            task()
        except BaseException as exc:  # a lost server: every stream and the o2c side stop
            reason = f"the query streams stopped: {one_line(exc)}"
            self.ctx.add_problem(reason)
            if self.fatal is None:
                self.fatal = reason
                self.ctx.stop.set()
                within(5.0, self.ctx.cancel_all)
                if self.on_fatal is not None:
                    self.on_fatal(reason)
        finally:
            done.set()

    def stop(self) -> None:
        """No new query; the running ones are cancelled (recorded ``cancelled``, outside the
        window); wait for the streams to return."""
        self.ctx.stop.set()
        within(5.0, self.ctx.cancel_all)
        for done in self._done:
            done.wait(timeout=GRACE_SECONDS)
        self.ctx.journal.event("mixed_streams_end", run=self.run.number)
        self.ctx.journal.sync()

    @property
    def stopped(self) -> bool:
        return all(d.is_set() for d in self._done)
