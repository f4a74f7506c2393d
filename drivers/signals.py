"""Signals during a workload: ``kill`` stops it as cleanly as Ctrl-C, and soon.

Every workload's run goes through :func:`interrupt_on_signals` (the run lifecycle enters it):
the first SIGINT or SIGTERM raises :class:`KeyboardInterrupt` in the main thread, so the
workload writes what it measured; a second one exits at once with one line (and
:data:`EXIT_INTERRUPTED`), killing the generator's worker processes. A server that does not
answer any more (frozen, unplugged) can hold that clean-up in a blocking call: whatever
happens, :data:`STOP_SECONDS` after the first signal the process exits as on a second one
(a CI timeout's SIGTERM never waits for ever; the journal keeps what was measured). The
watch is a thread woken by the signal itself (``signal.set_wakeup_fd``), so it runs even
while the main thread is stuck inside a driver's C code.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TypeVar

#: The exit code of an interrupted command, like a shell's (128 + SIGINT).
EXIT_INTERRUPTED = 130

#: The one line of a second Ctrl-C or ``kill``, which exits at once.
AGAIN = "dbbench: interrupted again; stopped at once (the journal keeps what was measured)\n"

#: Seconds from the first signal to the exit, however the clean-up goes.
STOP_SECONDS = 25.0

#: The one line of an exit that clean-up did not reach in time.
LATE = (
    "dbbench: interrupted; the engine did not answer, stopped after {:g} s "
    "(the journal keeps what was measured)\n"
)

T = TypeVar("T")


#: Process groups of children started in a session of their own (so that a terminal's
#: Ctrl-C reaches dbbench, which stops them itself): killed when the process exits at once.
_GROUPS: set[int] = set()


@contextlib.contextmanager
def killed_on_abrupt_exit(pgid: int) -> Iterator[None]:
    """While inside, a second signal or the :data:`STOP_SECONDS` backstop kills the process
    group ``pgid`` (a tool such as HammerDB, which the clean-up would have stopped) with
    this process, instead of leaving it running."""
    _GROUPS.add(pgid)
    try:
        yield
    finally:
        _GROUPS.discard(pgid)


def _exit_now(line: str) -> None:
    os.write(2, line.encode())
    for child in multiprocessing.active_children():  # the generator's workers
        with contextlib.suppress(Exception):
            child.kill()
    for group in list(_GROUPS):
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    os._exit(EXIT_INTERRUPTED)


def within(seconds: float, call: Callable[[], T]) -> T | None:
    """``call()`` on a daemon thread, waited for at most ``seconds``; None when it did not
    return by then (a blocking call to a server that does not answer) or raised."""
    box: list[T] = []

    def run() -> None:
        with contextlib.suppress(Exception):
            box.append(call())

    thread = threading.Thread(target=run, name="dbbench-bounded", daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else None


class _Watch:
    """Exits the process :data:`STOP_SECONDS` after the first SIGINT/SIGTERM, woken by
    the signal's byte on a pipe (``set_wakeup_fd``), not by the (maybe stuck) main thread."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe()
        os.set_blocking(self.write, False)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="dbbench-stop", daemon=True)

    def _run(self) -> None:
        while True:
            try:
                got = os.read(self.read, 64)
            except OSError:
                return
            if not got or self.done.is_set():
                return
            if any(b in (signal.SIGINT, signal.SIGTERM) for b in got):
                break
        if not self.done.wait(STOP_SECONDS):
            _exit_now(LATE.format(STOP_SECONDS))

    def close(self) -> None:
        self.done.set()
        os.close(self.write)  # the thread reads end of file
        self.thread.join(1.0)
        os.close(self.read)


#: Entered handlers of this process (nested uses install none of their own).
_ACTIVE: list[bool] = []


@contextlib.contextmanager
def interrupt_on_signals() -> Iterator[None]:
    """``kill`` stops a workload as cleanly as Ctrl-C (partial result, journal kept); a
    second Ctrl-C or ``kill`` while that cleanup runs exits at once, saying so in one line.
    The previous handlers come back afterwards (the CLI may run inside another program).
    Nested uses are one: the innermost handler is the same."""
    if _ACTIVE:  # a study's step inside the study: the study's handler serves both
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if received:
            _exit_now(AGAIN)
        received.append(signum)
        raise KeyboardInterrupt

    try:
        previous = {s: signal.signal(s, handler) for s in signals}
    except ValueError:  # not the main thread: signals cannot be handled here anyway
        yield
        return
    watch = _Watch()
    old_fd = signal.set_wakeup_fd(watch.write, warn_on_full_buffer=False)
    watch.thread.start()
    _ACTIVE.append(True)
    try:
        yield
    finally:
        _ACTIVE.pop()
        signal.set_wakeup_fd(old_fd)
        # After a first signal, the clean-up goes on outside (the partial result's line):
        # a second one still exits at once with its line. The command line's entry point
        # puts the handlers it found back when it returns.
        for signum, old in previous.items():
            signal.signal(signum, _again if received else old)
        watch.close()


def _again(signum: int, frame: FrameType | None) -> None:
    _exit_now(AGAIN)
