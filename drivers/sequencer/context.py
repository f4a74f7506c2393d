"""State shared by every stream of one benchmark: engine, journal, clock, stop flag.

Streams run on worker threads. They share nothing with each other but this context, which
serialises the few things they must share: the list of problems that make a run invalid,
the sessions to cancel when the run stops, and the result the intervals are appended to.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

from dbbench.drivers.engine import Engine, Session
from dbbench.drivers.errors import ConnectionLostError, DriversError, one_line
from dbbench.drivers.journal import Journal
from dbbench.drivers.open_sessions import OpenSessions
from dbbench.drivers.sequencer.answers import AnswerKeeper
from dbbench.drivers.sequencer.clock import Clock
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.progress import RunProgress
from dbbench.reports.tpch.model import Interval, IntervalKind, Phase, RunResult


@dataclass
class RunContext:
    engine: Engine
    options: RunOptions
    journal: Journal
    clock: Clock = field(default_factory=Clock)
    progress: RunProgress = field(default_factory=RunProgress)
    stop: threading.Event = field(default_factory=threading.Event)
    problems: list[str] = field(default_factory=list)
    _sessions: OpenSessions[Session] = field(default_factory=OpenSessions)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: A short id of this benchmark, so that Q15's view name is unique per stream and run.
    token: str = field(default_factory=lambda: secrets.token_hex(3))
    #: every completed query's output (``--answers``, the default); None: not kept
    answers: AnswerKeeper | None = None

    def view_suffix(self, run: int) -> str:
        """Appended to Q15's view name (``revenue<stream>_r<run>_<token>``)."""
        return f"_r{run}_{self.token}"

    def add_problem(self, message: str) -> None:
        """Record something that makes the benchmark invalid (a failed query, a lost server)."""
        with self.lock:
            if message not in self.problems:
                self.problems.append(message)
        self.journal.event("problem", message=message)

    def record(self, run: RunResult, interval: Interval) -> None:
        """Keep a measured interval in the result, then in the journal (if the journal's
        disk is full, the partial result written at the end still has the interval)."""
        with self.lock:
            run.intervals.append(interval)
        self.journal.event(f"{interval.kind}_end", run=run.number, **asdict(interval))

    def interval(
        self,
        kind: IntervalKind,
        where: tuple[Phase, int, int],
        start: float,
        end: float,
        **facts: Any,
    ) -> Interval:
        """The interval of ``kind`` at ``where`` (phase, stream, position) timed from the
        clock's ``start`` to ``end`` (monotonic readings), with its other ``facts``."""
        phase, stream, position = where
        return Interval(
            kind=kind, phase=phase, stream=stream, position=position,
            start=self.clock.wall(start), end=self.clock.wall(end), seconds=end - start,
            **facts,
        )  # fmt: skip

    def open_session(self) -> Session:
        try:
            session = self.engine.session()
        except DriversError:
            raise
        except Exception as exc:
            raise ConnectionLostError(f"cannot open a session: {one_line(exc)}") from exc
        return self._sessions.add(session)

    def close_session(self, session: Session) -> None:
        self._sessions.discard(session)
        # closing a dead connection must not hide why it died
        with contextlib.suppress(Exception):
            session.close()

    def cancel_all(self) -> None:
        """Stop every running statement (Ctrl-C, or a stream that lost its connection)."""
        sessions = self._sessions.snapshot()
        if not self.engine.capabilities.cancel:
            return
        for session in sessions:
            # best effort: the statement may have just finished
            with contextlib.suppress(Exception):
                session.cancel()
