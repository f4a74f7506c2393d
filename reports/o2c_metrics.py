"""o2c metrics: pure functions of the raw step measurements in an :class:`O2CResult`.

The rating is unofficial and SD-like: **O2C-SAPS (unofficial) = dialog steps per hour / 60**,
the arithmetic of SAP's SAPS definition (100 SAPS = 6,000 dialog steps/h = 2,000 fully
processed order line items/h). It is not SAPS and not comparable with SAP certifications:
there is no application layer, the data are TPC-H's, and the steps are the kit's own.

Closed-loop law (interactive response-time law): X = N / (Z + R), so a user produces at
most 3600 / (Z + R) dialog steps per hour; ``implied_think`` = N / X - R checks that the
driver kept its users' schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dbbench.reports.model import O2CProbe, O2CResult

STEPS_PER_LOOP = 15
LINES_PER_ORDER = 5
DIALOG_STEPS_PER_SAPS_HOUR = 60  # 100 SAPS = 6,000 dialog steps/h
LINE_ITEMS_PER_SAPS_HOUR = 20  # 100 SAPS = 2,000 line items/h
#: The loop's transactions and the steps (1..15) that belong to each.
TRANSACTION_STEPS: dict[str, tuple[int, ...]] = {
    "VA01": (1, 2, 3, 4),
    "VL01N": (5, 6),
    "VA03": (7, 8),
    "VL02N": (9, 10, 11),
    "VA05": (12, 13),
    "VF01": (14, 15),
}
STEP_TRANSACTION = {s: t for t, steps in TRANSACTION_STEPS.items() for s in steps}
RATING_NAME = "O2C-SAPS (unofficial)"
DISCLAIMER = (
    "O2C-SAPS is an unofficial, SD-like rating computed by dbbench (dialog steps/h / 60). "
    "It is not SAPS, this is not the SAP SD benchmark, and the figures are not comparable "
    "with SAP certifications."
)
#: Above this relative gap between implied and configured think time the driver lagged.
THINK_TOLERANCE = 0.05


def closed_loop_steps_per_hour(users: float, think: float, rt: float) -> float:
    """X = N x 3600 / (Z + R): dialog steps per hour of N users in a closed loop."""
    return users * 3600.0 / (think + rt)


def rating(steps_per_hour: float) -> float:
    """O2C-SAPS (unofficial): dialog steps per hour / 60 (SAP's SAPS arithmetic)."""
    return steps_per_hour / DIALOG_STEPS_PER_SAPS_HOUR


def implied_think(users: float, steps_per_hour: float, rt: float) -> float:
    """Z = N / X - R, in seconds."""
    return users * 3600.0 / steps_per_hour - rt


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of an ascending list; NaN when empty."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class RtStats:
    count: int
    avg: float
    p50: float
    p90: float
    p95: float
    p99: float
    max: float

    @classmethod
    def of(cls, values: list[float]) -> RtStats:
        v = sorted(values)
        avg = sum(v) / len(v) if v else math.nan
        p50, p90, p95, p99 = (percentile(v, p) for p in (50, 90, 95, 99))
        return cls(len(v), avg, p50, p90, p95, p99, v[-1] if v else math.nan)


@dataclass
class ProbeSummary:
    users: int
    think: float
    work_processes: int
    window_seconds: float
    steps: int  # dialog steps completed in the window (log-ons excluded)
    errors: int  # failed steps (any phase)
    avg_rt: float
    avg_wait: float
    avg_db: float
    steps_per_hour: float
    line_items_per_hour: float
    orders_per_hour: float
    rating: float
    implied_think: float
    rt_limit: float
    passed: bool
    reasons: list[str]
    warnings: list[str]
    overall: RtStats
    per_step: dict[int, RtStats]
    per_transaction: dict[str, RtStats]
    throughput: list[tuple[float, float]] = field(default_factory=list)  # (t, steps/s)
    driver_cpu_ms_per_step: float | None = None
    host_cpu_busy: float | None = None
    #: the local database server's processes' share of all host CPUs in the window, and the
    #: driver process's (None: not measured; an embedded engine is inside the driver's)
    server_cpu_busy: float | None = None
    driver_cpu_busy: float | None = None
    driver_lag_p50: float | None = None  # seconds from due to the user task running
    driver_lag_p99: float | None = None
    driver_lag_max: float | None = None
    #: database time of the window's steps / (work processes x window): near 1, the pool
    #: (not necessarily the database) limits the users; raise --work-processes to see
    pool_utilisation: float = math.nan
    role: str = "probe"  # or "confirmation" (a search's full-length run at its result)


def summarize(probe: O2CProbe, rt_limit: float, bucket: float = 0.0) -> ProbeSummary:
    """Everything a report shows about one probe, from its raw steps."""
    s = probe.steps
    w0, w1 = probe.window_start, probe.window_end
    window = max(w1 - w0, 1e-9)
    rts: list[float] = []
    waits: list[float] = []
    dbs: list[float] = []
    by_step: dict[int, list[float]] = {}
    invoices = 0
    errors = 0
    for i in range(len(s.step)):
        if not s.ok[i]:
            errors += 1
            continue
        step = s.step[i]
        rt = s.wait[i] + s.db[i]
        end = s.due[i] + rt
        if step == 0 or not (w0 <= end <= w1):
            continue
        rts.append(rt)
        waits.append(s.wait[i])
        dbs.append(s.db[i])
        by_step.setdefault(step, []).append(rt)
        if step == STEPS_PER_LOOP:
            invoices += 1
    n = len(rts)
    avg = sum(rts) / n if n else math.nan
    sph = n * 3600.0 / window
    reasons: list[str] = []
    if probe.status != "complete":
        reasons.append(f"the run is {probe.status}")
    if errors:
        reasons.append(f"{errors} dialog steps failed")
    if not n:
        reasons.append("no dialog step completed in the steady-state window")
    elif avg > rt_limit:
        reasons.append(
            f"average dialog response time {avg:.3f} s is above the limit {rt_limit:g} s"
        )
    z = implied_think(probe.users, sph, avg) if n else math.nan
    warnings: list[str] = []
    if n and probe.think > 0 and abs(z - probe.think) > THINK_TOLERANCE * probe.think:
        warnings.append(
            f"implied think time {z:.3f} s differs from the configured {probe.think:g} s "
            f"by more than {THINK_TOLERANCE:.0%}: the window is short against the response "
            "time, or the load was still changing (response times count any driver lag, "
            "so this does not invalidate the run)"
        )
    loop = STEPS_PER_LOOP * probe.think
    if n and loop > 0 and window < loop:
        warnings.append(
            f"the steady window ({window:.0f} s) is shorter than one order-to-cash loop "
            f"({STEPS_PER_LOOP} steps x {probe.think:g} s think = {loop:.0f} s): few or no "
            "orders complete inside it, so line items/h and orders/h understate; dialog "
            "steps/h and the response time are unaffected (a longer --steady fixes it)"
        )
    per_tx = {
        t: RtStats.of([v for st in steps for v in by_step.get(st, [])])
        for t, steps in TRANSACTION_STEPS.items()
    }
    cpu = probe.driver_cpu_seconds
    return ProbeSummary(
        users=probe.users,
        think=probe.think,
        work_processes=probe.work_processes,
        window_seconds=window,
        steps=n,
        errors=errors,
        avg_rt=avg,
        avg_wait=sum(waits) / n if n else math.nan,
        avg_db=sum(dbs) / n if n else math.nan,
        steps_per_hour=sph,
        line_items_per_hour=invoices * LINES_PER_ORDER * 3600.0 / window,
        orders_per_hour=invoices * 3600.0 / window,
        rating=rating(sph),
        implied_think=z,
        rt_limit=rt_limit,
        passed=not reasons,
        reasons=reasons,
        warnings=warnings,
        overall=RtStats.of(rts),
        per_step={k: RtStats.of(v) for k, v in sorted(by_step.items())},
        per_transaction=per_tx,
        throughput=throughput_series(probe, bucket or max(1.0, round(probe.end / 60.0))),
        driver_cpu_ms_per_step=(cpu * 1000.0 / n) if cpu is not None and n else None,
        host_cpu_busy=probe.host_cpu_busy,
        server_cpu_busy=_share(probe.server_cpu_seconds, window, probe.host_cpus),
        driver_cpu_busy=_share(cpu, window, probe.host_cpus),
        driver_lag_p50=probe.driver_lag_p50,
        driver_lag_p99=probe.driver_lag_p99,
        driver_lag_max=probe.driver_lag_max,
        pool_utilisation=sum(dbs) / (probe.work_processes * window) if n else math.nan,
        role=probe.role,
    )


def _share(cpu_seconds: float | None, window: float, cpus: int | None) -> float | None:
    """CPU seconds as a fraction of every host CPU over the window."""
    if cpu_seconds is None or not cpus or window <= 0:
        return None
    return cpu_seconds / (window * cpus)


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


def throughput_series(probe: O2CProbe, bucket: float) -> list[tuple[float, float]]:
    """Completed steps per second in buckets of ``bucket`` seconds over the whole probe."""
    s = probe.steps
    if bucket <= 0 or not s.step:
        return []
    counts: dict[int, int] = {}
    for i in range(len(s.step)):
        if s.ok[i] and s.step[i]:
            b = int((s.due[i] + s.wait[i] + s.db[i]) // bucket)
            counts[b] = counts.get(b, 0) + 1
    top = max(counts) if counts else 0
    return [(b * bucket, counts.get(b, 0) / bucket) for b in range(top + 1)]


@dataclass
class SearchSummary:
    probes: list[ProbeSummary]
    best: ProbeSummary | None  # the largest passing user count (no interpolation)


def summarize_result(result: O2CResult) -> SearchSummary:
    """Every probe's summary and the result: the largest user count none of whose runs
    failed (a failed confirmation run rules its count out); its confirmation run's figures
    when there is one, else its probe's."""
    probes = [summarize(p, result.rt_limit) for p in result.probes]
    failed = {p.users for p in probes if not p.passed}
    passing = [p for p in probes if p.passed and p.users not in failed]
    best = max(passing, key=lambda p: (p.users, p.role == "confirmation")) if passing else None
    return SearchSummary(probes, best)


@dataclass
class ScalePoint:
    """One user count of an o2c scaling study, against the study's first (smallest) one."""

    users: int
    steps_per_hour: float
    avg_rt: float
    passed: bool
    relative: float | None  # dialog steps/h against the first point's
    efficiency: float | None  # relative / (users / the first point's users): 1.0 is linear


def scaling(probes: list[ProbeSummary]) -> list[ScalePoint]:
    """The seeds' scaling table for o2c: relative throughput and scaling efficiency."""
    ordered = sorted(probes, key=lambda p: p.users)
    if not ordered:
        return []
    first = ordered[0]
    out = []
    for p in ordered:
        relative = p.steps_per_hour / first.steps_per_hour if first.steps_per_hour > 0 else None
        efficiency = None if relative is None else relative / (p.users / first.users)
        out.append(ScalePoint(p.users, p.steps_per_hour, p.avg_rt, p.passed, relative, efficiency))
    return out


@dataclass
class NodeSummary:
    """One database node of an SD-Parallel-style run (users round-robin over the nodes)."""

    node: str
    users: int
    steps: int  # dialog steps completed in the window
    errors: int
    avg_rt: float
    steps_per_hour: float


def per_node(probe: O2CProbe) -> list[NodeSummary]:
    """The window's figures per node (user ``u`` on node ``u % len(probe.nodes)``); empty
    when the probe ran on one database."""
    n = len(probe.nodes)
    if n < 2:
        return []
    s = probe.steps
    w0, w1 = probe.window_start, probe.window_end
    window = max(w1 - w0, 1e-9)
    rts: list[list[float]] = [[] for _ in range(n)]
    errors = [0] * n
    for i in range(len(s.step)):
        k = s.user[i] % n
        if not s.ok[i]:
            errors[k] += 1
            continue
        rt = s.wait[i] + s.db[i]
        if s.step[i] == 0 or not (w0 <= s.due[i] + rt <= w1):
            continue
        rts[k].append(rt)
    users = [len(range(k, probe.users, n)) for k in range(n)]
    return [
        NodeSummary(
            probe.nodes[k], users[k], len(rts[k]), errors[k],
            sum(rts[k]) / len(rts[k]) if rts[k] else math.nan,
            len(rts[k]) * 3600.0 / window,
        )
        for k in range(n)
    ]  # fmt: skip


@dataclass
class NodesPoint:
    """One cluster size of an SD-Parallel-style node study: the user count found at the
    response-time limit on that many nodes, against the one-node (smallest) figure."""

    nodes: int
    users: int
    avg_rt: float
    steps_per_hour: float
    relative: float | None  # dialog steps/h against the smallest cluster's
    efficiency: float | None  # relative / (nodes / the smallest cluster's nodes)


def node_scaling(best: list[ProbeSummary], node_counts: list[int]) -> list[NodesPoint]:
    """The seeds' SD-Parallel table: nodes, users at the limit, dialog steps/h, relative."""
    pairs = sorted(zip(node_counts, best, strict=True), key=lambda x: x[0])
    if not pairs:
        return []
    n0, first = pairs[0]
    out = []
    for n, p in pairs:
        relative = p.steps_per_hour / first.steps_per_hour if first.steps_per_hour > 0 else None
        efficiency = None if relative is None else relative / (n / n0)
        out.append(NodesPoint(n, p.users, p.avg_rt, p.steps_per_hour, relative, efficiency))
    return out
