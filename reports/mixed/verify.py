"""What ``verify`` recomputes of a mixed result: the status against its points', and from
the raw steps and intervals the mixed point's dialog steps/h, response time and query sets/h
(:func:`reports.mixed.metrics.summarize_mixed`; a frontier: its first mixed point's)."""

from __future__ import annotations

from dbbench.reports.family import Checked, FigureValue, Problem, status_problems
from dbbench.reports.mixed.metrics import summarize_mixed
from dbbench.reports.mixed.model import MixedResult, mixed_status


def mixed_figures(result: MixedResult) -> dict[str, FigureValue]:
    s = summarize_mixed(result)
    mixed = [p for p in s.points if p.point.role == "mixed"]
    first = mixed[0] if mixed else None
    o2c = first.o2c if first is not None else None
    streams = first.streams if first is not None else None
    return {
        "points": len(s.points),
        "users": first.point.users if first is not None else None,
        "streams": first.point.streams if first is not None else None,
        "steps_per_hour": o2c.steps_per_hour if o2c is not None else None,
        "avg_rt": o2c.avg_rt if o2c is not None else None,
        "sets_per_hour": streams.sets_per_hour if streams is not None else None,
        "valid": s.valid,
        "passed": s.passed,
    }


def mixed_problems(result: MixedResult) -> list[Problem]:
    return status_problems(result.status, mixed_status(result.points), "points")


def check(result: MixedResult) -> Checked:
    return Checked(mixed_figures(result), mixed_problems(result))
