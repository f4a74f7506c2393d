"""Timing: a monotonic clock for durations, with wall-clock times derived from it.

Every interval is measured with :func:`time.perf_counter` (monotonic, sub-microsecond). Its
wall-clock start and end are computed from one anchor taken when the run starts, so the
wall-clock times of a run are consistent with its durations even if NTP steps the system
clock mid-run (Ts is then exactly the difference of two recorded times).
"""

from __future__ import annotations

import time


class Clock:
    """One anchor pair (wall, monotonic) per benchmark."""

    def __init__(self) -> None:
        self._wall0 = time.time()
        self._mono0 = time.perf_counter()

    @staticmethod
    def mono() -> float:
        return time.perf_counter()

    def wall(self, mono: float) -> float:
        """The wall-clock time (Unix seconds) of a monotonic reading."""
        return self._wall0 + (mono - self._mono0)

    def now(self) -> float:
        return self.wall(time.perf_counter())
