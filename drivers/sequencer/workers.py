"""Streams on threads, with the main thread free to react to Ctrl-C.

Threads, not processes, drive the streams. DuckDB runs a query on its own threads without
the GIL, psycopg and PyMySQL release it while they wait on the server, and only one process
may open a DuckDB file for writing (Q15's view, the refresh stream). Measured with
``benchmarks/harness_overhead.py --executors`` (benchmarks/README.md): on DuckDB threads
won every series (by 6 to 23 %), on PostgreSQL the two were within the noise.

Even a single stream (the power test) runs on a worker thread, so that the main thread only
waits and a SIGINT is handled at once: it sets the stop flag, cancels every running
statement and lets the streams wind down, keeping what they measured.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from dbbench.drivers.errors import ConnectionLostError
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.signals import within

#: How long stopped streams get to return after a cancel, and the cancel itself: within the
#: time ``drivers.signals`` allows an interrupted run (a frozen server answers neither).
_GRACE_SECONDS = 10.0
_CANCEL_SECONDS = 5.0


def run_workers(ctx: RunContext, tasks: Sequence[tuple[str, Callable[[], None]]]) -> None:
    """Run every task on its own thread; re-raise the first failure once all have ended."""
    failures: list[BaseException] = []
    lock = threading.Lock()
    # Completion is signalled by events, not read off Thread.join: a join interrupted by
    # Ctrl-C can leave CPython reporting a still-running thread as finished.
    done = [threading.Event() for _ in tasks]

    def wrap(task: Callable[[], None], finished: threading.Event) -> Callable[[], None]:
        def body() -> None:
            try:
                task()
            except BaseException as exc:
                with lock:
                    failures.append(exc)
                ctx.stop.set()  # one broken stream ends the run: no point going on
                ctx.cancel_all()
            finally:
                finished.set()

        return body

    threads = [
        threading.Thread(target=wrap(task, finished), name=f"dbbench-{name}", daemon=True)
        for (name, task), finished in zip(tasks, done, strict=True)
    ]
    for thread in threads:
        thread.start()
    try:
        for finished in done:
            while not finished.wait(timeout=0.1):
                pass
    except KeyboardInterrupt:
        ctx.stop.set()
        ctx.journal.event("interrupted")
        within(_CANCEL_SECONDS, ctx.cancel_all)
        deadline = time.monotonic() + _GRACE_SECONDS
        for finished in done:
            finished.wait(timeout=max(0.0, deadline - time.monotonic()))
        raise
    if failures:
        lost = [f for f in failures if isinstance(f, ConnectionLostError)]
        raise (lost or failures)[0]
