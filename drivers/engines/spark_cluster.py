"""Spark's cluster: waiting for a master's executors, and the lock between queries and the
refresh functions' file swap (many queries at once, or one swap)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dbbench.drivers.errors import DriversError


def wait_for_executors(spark: Any, master: str, seconds: int) -> None:
    """A cluster master hands out executors after the application starts; one that is up
    but has no worker with free cores and memory would leave every job waiting for ever.
    Wait for them (all W of ``local-cluster[W,...]``, at least one elsewhere), else stop
    and say so in one line."""
    if master.startswith("local-cluster"):
        wanted = int(master.partition("[")[2].split(",")[0] or 1)
    elif master.startswith("spark://"):
        wanted = 1
    else:
        return
    deadline = time.monotonic() + seconds
    while True:
        executors = int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1
        if executors >= wanted:
            return
        if time.monotonic() >= deadline:
            spark.stop()
            raise DriversError(
                f"Spark master {master} gave this application {executors} of {wanted} "
                f"executor(s) within {seconds} s: no worker with free cores and memory is "
                "registered (start workers, or wait longer with ?executor_wait=SECONDS)"
            )
        time.sleep(0.2)


class ReadWriteLock:
    """Many queries at once, or one file swap; a waiting swap holds new queries back."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False
        self._waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._writing or self._waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
