"""The o2c judge: the verdicts of :mod:`reports.o2c.metrics` in the shape the studies of
:mod:`drivers.o2c.study` take (their ``Judge`` protocol, met structurally: the drivers compute
no metrics, and reports never import the drivers). The command line only builds one from the
limits it parsed and hands it over.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbbench.reports.o2c.metrics import (
    RATING_NAME,
    Limits,
    pool_bound,
    summarize,
    summarize_result,
)
from dbbench.reports.o2c.model import O2CProbe, O2CResult


@dataclass(frozen=True)
class MetricsJudge:
    """The reports' verdicts for the workloads of :mod:`drivers.o2c.study` (its ``Judge``)."""

    limits: Limits

    def passes(self, probe: O2CProbe) -> bool:
        return summarize(probe, self.limits).passed

    def describe(self, probe: O2CProbe, passed: bool) -> str:
        s = summarize(probe, self.limits)
        label = "confirmation" if probe.role == "confirmation" else "probe"
        why = f" ({s.reasons[0]})" if s.reasons else ""
        drivers = probe.driver_processes
        by = f", {drivers} driver processes" if drivers > 1 else ""
        return (
            f"{label} {probe.users:,} users, W={probe.work_processes}{by}: avg RT {s.avg_rt:.3f} s "
            f"(p90 {s.overall.p90:.3f}, p99 {s.overall.p99:.3f}; work-process wait "
            f"{s.rt_pool_wait:.3f}, database {s.avg_db:.3f}, driver lag {s.rt_driver_lag:.3f}), "
            f"{s.steps_per_hour:,.0f} dialog steps/h, {RATING_NAME} {s.rating:,.0f} -> "
            f"{'pass' if passed else 'fail'}{why}"
        )

    def best(self, result: O2CResult) -> int | None:
        summary = summarize_result(result)
        if summary.best is None:
            return None
        return next(i for i, x in enumerate(summary.probes) if x is summary.best)

    def pool_bound(self, probe: O2CProbe) -> tuple[float, bool]:
        s = summarize(probe, self.limits)
        return s.avg_rt, pool_bound(s)

    def scaled(self, probe: O2CProbe) -> str:
        s = summarize(probe, self.limits)
        return (
            f"scale: {probe.users:,} users: avg RT {s.avg_rt:.3f} s "
            f"(p90 {s.overall.p90:.3f}, p99 {s.overall.p99:.3f}), "
            f"{s.steps_per_hour:,.0f} dialog steps/h"
        )
