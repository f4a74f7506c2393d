"""o2c time series of one probe's raw steps: the steady window's response times, when each
user logged on, completed steps per second over the probe (its throughput chart)."""

from __future__ import annotations

from dbbench.reports.o2c.model import O2CProbe


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


def throughput_series(probe: O2CProbe, bucket: float) -> list[tuple[float, float]]:
    """Completed steps per second in buckets of ``bucket`` seconds over the whole probe
    (wider buckets when the probe would need more than :data:`MAX_BUCKETS`)."""
    s = probe.steps
    if not bucket > 0 or not s.step:
        return []
    ends = [s.due[i] + s.wait[i] + s.db[i] for i in range(len(s.step)) if s.ok[i] and s.step[i]]
    ends = [e for e in ends if e >= 0]
    if not ends:
        return []
    bucket = max(bucket, max(ends) / MAX_BUCKETS)
    counts: dict[int, int] = {}
    for end in ends:
        b = min(int(end // bucket), MAX_BUCKETS - 1)
        counts[b] = counts.get(b, 0) + 1
    top = max(counts)
    return [(b * bucket, counts.get(b, 0) / bucket) for b in range(top + 1)]
