"""Signals during a long command: ``kill`` stops it as cleanly as Ctrl-C.

Used by every command that measures (``run`` and its parts, ``o2c``): the first SIGINT or
SIGTERM raises :class:`KeyboardInterrupt`, so the command writes what it measured; a second
one exits at once with one line.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections.abc import Iterator
from types import FrameType

from dbbench.errors import ExitCode

#: The one line of a second Ctrl-C, which exits at once.
AGAIN = "dbbench: interrupted again; stopped at once (the journal keeps what was measured)\n"


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """``kill`` stops a run as cleanly as Ctrl-C (partial result, journal kept); a second
    Ctrl-C or ``kill`` while that cleanup runs exits at once, saying so in one line. The
    previous handlers come back afterwards (the CLI may run inside another program)."""
    signals = (signal.SIGINT, signal.SIGTERM)
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if received:
            os.write(2, AGAIN.encode())
            for child in multiprocessing.active_children():  # the generator's workers
                with contextlib.suppress(Exception):
                    child.kill()
            os._exit(ExitCode.INTERRUPTED)
        received.append(signum)
        raise KeyboardInterrupt

    try:
        previous = {s: signal.signal(s, handler) for s in signals}
    except ValueError:  # not the main thread: signals cannot be handled here anyway
        yield
        return
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
