"""The sessions a piece of the kit has open at once, shared by threads.

A run's context cancels them when the run stops; an engine that hands out sessions of its
own (Spark, Sail) refreshes and stops them. Each keeps them here, under a lock of their own.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

S = TypeVar("S")


class OpenSessions(Generic[S]):
    """A thread-safe list of open sessions, numbered in the order they were opened."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: list[S] = []
        self._opened = 0

    def next_number(self) -> int:
        """The number of the session about to be opened (1, 2, ...)."""
        with self._lock:
            self._opened += 1
            return self._opened

    def add(self, session: S) -> S:
        with self._lock:
            self._sessions.append(session)
        return session

    def discard(self, session: S) -> None:
        """Forget ``session`` (nothing happens if it is not in the list)."""
        with self._lock:
            if session in self._sessions:
                self._sessions.remove(session)

    def snapshot(self) -> list[S]:
        """The sessions open now (a copy: the list may change as soon as it is returned)."""
        with self._lock:
            return list(self._sessions)

    def take_all(self) -> list[S]:
        """Every session open now, leaving the list empty (to stop them all)."""
        with self._lock:
            sessions, self._sessions = self._sessions, []
        return sessions
