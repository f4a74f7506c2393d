"""Per-query timeouts: one watchdog thread per session cancels a statement past its deadline.

A single long-lived thread per stream (rather than a timer per query) keeps the cost of
arming a timeout to a lock and a notify, far below the harness-overhead budget.
"""

from __future__ import annotations

import threading
import time

from dbbench.drivers.engine import Session


class Watchdog:
    """Arms a deadline around each statement; cancels the session when it passes.

    :meth:`disarm` waits for an in-flight cancel to finish, so a late cancel can never hit
    the next statement of the stream.
    """

    def __init__(self, session: Session, timeout: float | None, can_cancel: bool) -> None:
        self._session = session
        self._timeout = timeout
        self._can_cancel = can_cancel
        self._cv = threading.Condition()
        self._deadline: float | None = None
        self._fired = False
        self._cancelling = False
        self._closed = False
        self._thread: threading.Thread | None = None
        if timeout is not None:
            self._thread = threading.Thread(target=self._watch, name="dbbench-watchdog")
            self._thread.daemon = True
            self._thread.start()

    def arm(self) -> None:
        if self._thread is None:
            return
        with self._cv:
            assert self._timeout is not None
            self._fired = False
            self._deadline = time.perf_counter() + self._timeout
            self._cv.notify()

    def disarm(self) -> bool:
        """Stop watching; True when the deadline passed while the statement ran."""
        if self._thread is None:
            return False
        with self._cv:
            self._deadline = None
            while self._cancelling:
                self._cv.wait()
            fired, self._fired = self._fired, False
            return fired

    def close(self) -> None:
        if self._thread is None:
            return
        with self._cv:
            self._closed = True
            self._cv.notify()
        self._thread.join(timeout=5)

    def _watch(self) -> None:
        with self._cv:
            while not self._closed:
                if self._deadline is None:
                    self._cv.wait()
                    continue
                remaining = self._deadline - time.perf_counter()
                if remaining > 0:
                    self._cv.wait(remaining)
                    continue
                self._deadline = None
                self._fired = True
                if self._can_cancel:
                    self._cancelling = True
                    self._cv.release()
                    try:
                        self._session.cancel()
                    except Exception:  # a failed cancel leaves the query to finish on its own
                        pass
                    finally:
                        self._cv.acquire()
                        self._cancelling = False
                        self._cv.notify_all()
