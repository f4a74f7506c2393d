"""What ``verify`` recomputes of an ACID result: how many tests ran, passed and failed, the
verdict they make, and that a test stated as passed read what it expected (a value expected
exactly, not one of alternatives, must be the value read)."""

from __future__ import annotations

from dbbench.reports.acid.model import AcidResult
from dbbench.reports.family import Checked, Problem


def acid_problems(result: AcidResult) -> list[Problem]:
    out: list[Problem] = []
    for i, check in enumerate(result.checks):
        if check.verdict != "passed":
            continue
        for key, expected in check.expected.items():
            observed = check.observed.get(key)
            if observed is not None and " or " not in expected and observed != expected:
                out.append(
                    Problem(
                        f"checks[{i}].observed.{key}",
                        f"{check.name} stated passed, but it read {observed!r} "
                        f"where {expected!r} was expected",
                    )
                )
    return out


def check(result: AcidResult) -> Checked:
    verdicts = [c.verdict for c in result.checks]
    figures = {
        "tests": len(verdicts),
        "passed": verdicts.count("passed"),
        "failed": verdicts.count("failed"),
        "verdict": result.verdict,
    }
    return Checked(dict(figures), acid_problems(result))
