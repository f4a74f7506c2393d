"""Streams on threads, with the main thread free to react to Ctrl-C.

Threads, not processes, drive the streams. DuckDB runs a query on its own threads without
the GIL, psycopg and PyMySQL release it while they wait on the server, and only one process
may open a DuckDB file for writing (Q15's view, the refresh stream). Measured with
``benchmarks/harness_overhead.py --executors`` (README, "Performance"): on DuckDB threads
were about 20 % faster than processes, on PostgreSQL the two were within the noise.

Even a single stream (the power test) runs on a worker thread, so that the main thread only
waits and a SIGINT is handled at once: it sets the stop flag, cancels every running
statement and lets the streams wind down, keeping what they measured.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from drivers.errors import ConnectionLostError
from drivers.sequencer.context import RunContext

_GRACE_SECONDS = 30.0  # how long stopped streams get to return after a cancel


def run_workers(ctx: RunContext, tasks: Sequence[tuple[str, Callable[[], None]]]) -> None:
    """Run every task on its own thread; re-raise the first failure once all have ended."""
    failures: list[BaseException] = []
    lock = threading.Lock()

    def wrap(task: Callable[[], None]) -> Callable[[], None]:
        def body() -> None:
            try:
                task()
            except BaseException as exc:
                with lock:
                    failures.append(exc)
                ctx.stop.set()  # one broken stream ends the run: no point going on
                ctx.cancel_all()

        return body

    threads = [
        threading.Thread(target=wrap(task), name=f"dbbench-{name}", daemon=True)
        for name, task in tasks
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=0.1)
    except KeyboardInterrupt:
        ctx.stop.set()
        ctx.journal.event("interrupted")
        ctx.cancel_all()
        for thread in threads:
            thread.join(timeout=_GRACE_SECONDS)
        raise
    if failures:
        lost = [f for f in failures if isinstance(f, ConnectionLostError)]
        raise (lost or failures)[0]
