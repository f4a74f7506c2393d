"""Stopping the generator's worker pool on an error (a full disk, Ctrl-C) leaves nothing
running that Python's exit hook could race: a traceback after the one error line was seen
once in CI (`gen` on a full tmpfs), because the pool's manager thread was still alive when
``concurrent.futures``' exit hook wrote to the wake-up pipe it was closing."""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from dbbench.dbgen.writer import _stop_workers


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_stopped_pool_leaves_no_manager_thread_behind() -> None:
    ctx = multiprocessing.get_context("fork")
    for _ in range(5):  # a race: a few pools, each stopped while its workers are busy
        pool = ProcessPoolExecutor(2, ctx)
        futures = [pool.submit(_sleep, 30) for _ in range(4)]
        time.sleep(0.2)  # the workers started and took a task each
        manager = pool._executor_manager_thread  # type: ignore[attr-defined]
        assert manager is not None and manager.is_alive()
        workers = list(pool._processes.values())  # type: ignore[union-attr]
        _stop_workers(pool)
        assert not manager.is_alive(), "the pool's manager thread outlived _stop_workers"
        assert not any(p.is_alive() for p in workers)
        assert all(f.done() for f in futures)
