"""What ``verify`` recomputes of an o2c result: the status against the probes', dialog
steps/h and the average response time of the result from the raw steps
(:func:`reports.o2c.metrics.summarize_result`)."""

from __future__ import annotations

from dbbench.reports.family import Checked, FigureValue, Problem, status_problems
from dbbench.reports.o2c.model import O2CResult, o2c_status


def o2c_figures(result: O2CResult) -> dict[str, FigureValue]:
    from dbbench.reports.o2c.metrics import summarize_result

    best = summarize_result(result).best
    if best is None:
        return {"users": None, "steps_per_hour": None, "avg_rt": None}
    return {"users": best.users, "steps_per_hour": best.steps_per_hour, "avg_rt": best.avg_rt}


def o2c_problems(result: O2CResult) -> list[Problem]:
    return status_problems(result.status, o2c_status(result.probes), "probes")


def check(result: O2CResult) -> Checked:
    return Checked(o2c_figures(result), o2c_problems(result))
