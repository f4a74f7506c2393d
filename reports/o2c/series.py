"""o2c time series of one probe's raw steps: the steady window's response times, when each
user logged on, completed steps per second over the probe (its throughput chart)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from dbbench.reports.o2c.model import O2CProbe, O2CSteps, kept_arrays


class StepArrays(NamedTuple):
    """A probe's step columns as numpy arrays (a long search's millions of steps are
    summarised column by column, not step by step)."""

    step: Any
    user: Any
    due: Any
    wait: Any
    db: Any
    ok: Any


def step_arrays(steps: O2CSteps) -> StepArrays:
    """``steps``' columns as arrays (integers as int64, times as float64): those a read
    of the result's steps file made them of, while they are the same (:func:`kept_arrays`)."""
    kept = kept_arrays(steps)
    if kept is not None:
        return StepArrays(*kept)
    return StepArrays(
        np.asarray(steps.step, dtype=np.int64),
        np.asarray(steps.user, dtype=np.int64),
        np.asarray(steps.due, dtype=np.float64),
        np.asarray(steps.wait, dtype=np.float64),
        np.asarray(steps.db, dtype=np.float64),
        np.asarray(steps.ok, dtype=np.int64),
    )


def total(values: Any) -> float:
    """The sum of an array's values added one after another in order (what ``sum`` of
    the list makes, to the last bit; numpy's own ``sum`` adds pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def window_response_times(probe: O2CProbe) -> list[float]:
    """Response times of the dialog steps completed in the steady-state window."""
    s = probe.steps
    found = []
    for i in range(len(s.step)):
        rt = s.wait[i] + s.db[i]
        if s.ok[i] and s.step[i] and probe.window_start <= s.due[i] + rt <= probe.window_end:
            found.append(rt)
    return found


def logged_on_series(probe: O2CProbe) -> list[float]:
    """When each user's first log-on finished (seconds since start), ascending."""
    s = probe.steps
    first: dict[int, float] = {}
    for i in range(len(s.step)):
        if s.step[i] == 0 and s.ok[i] and s.user[i] not in first:
            first[s.user[i]] = s.due[i] + s.wait[i] + s.db[i]
    return sorted(first.values())


#: At most this many buckets in a throughput series, whatever the step times say (a crafted
#: result with a huge step time must not make one bucket per second up to it).
MAX_BUCKETS = 2000


def throughput_series(
    probe: O2CProbe, bucket: float, arrays: StepArrays | None = None
) -> list[tuple[float, float]]:
    """Completed steps per second in buckets of ``bucket`` seconds over the whole probe
    (wider buckets when the probe would need more than :data:`MAX_BUCKETS`); ``arrays``:
    the probe's :func:`step_arrays`, when made already."""
    if not bucket > 0 or not probe.steps.step:
        return []
    a = arrays if arrays is not None else step_arrays(probe.steps)
    ends = (a.due + a.wait + a.db)[(a.ok != 0) & (a.step != 0)]
    ends = ends[ends >= 0]
    if not len(ends):
        return []
    bucket = max(bucket, float(np.max(ends)) / MAX_BUCKETS)
    buckets = np.minimum(np.floor_divide(ends, bucket), MAX_BUCKETS - 1).astype(np.int64)
    counts = np.bincount(buckets).tolist()
    return [(b * bucket, counts[b] / bucket) for b in range(len(counts))]
