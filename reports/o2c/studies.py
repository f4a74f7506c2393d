"""o2c figures across probes: repeated probes at one user count (the mean and its 95 %
confidence interval), a scaling study (relative dialog steps/h and efficiency against users)
and the nodes of a cluster (per node, and relative to the fewest nodes)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dbbench.reports.o2c.metrics import ProbeSummary, measured_end
from dbbench.reports.o2c.model import O2CProbe

#: Student's t, two-sided 95 %, by degrees of freedom (1..30; beyond: 1.96)
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)  # fmt: skip


@dataclass(frozen=True)
class Interval:
    """The mean of repeated measurements and its 95 % confidence half-width (Student's t;
    NaN for one measurement)."""

    n: int
    mean: float
    half_width: float

    @classmethod
    def of(cls, values: list[float]) -> Interval:
        n = len(values)
        if n == 0:
            return cls(0, math.nan, math.nan)
        mean = sum(values) / n
        if n == 1:
            return cls(1, mean, math.nan)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
        return cls(n, mean, t * sd / math.sqrt(n))


@dataclass(frozen=True)
class Repeats:
    """Repeated runs at one user count: steps/h and the average RT, mean and 95 % CI."""

    users: int
    steps_per_hour: Interval
    avg_rt: Interval


def repeats(probes: list[ProbeSummary]) -> list[Repeats]:
    """Per user count run more than once with the same pool (``run --repeat``, a search's
    repeated confirmation): the mean and 95 % confidence interval of steps/h and the RT.
    Probes of one count with different pools (``--work-processes auto``) are not repeats."""
    by_users: dict[tuple[int, str, int], list[ProbeSummary]] = {}
    for p in probes:
        by_users.setdefault((p.users, p.role, p.work_processes), []).append(p)
    return [
        Repeats(
            users,
            Interval.of([p.steps_per_hour for p in group]),
            Interval.of([p.avg_rt for p in group]),
        )
        for (users, _, _), group in sorted(by_users.items())
        if len(group) > 1
    ]


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
    w0, w1 = probe.window_start, measured_end(probe)
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
