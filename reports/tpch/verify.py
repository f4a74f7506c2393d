"""What ``verify`` recomputes of a TPC-H result: every interval's time against its own start
and end, QphH, Power and Throughput from the intervals (:func:`reports.tpch.summary.build_report`'s
headline), and the compliance verdict re-judged (:func:`reports.tpch.compliance.judge`) against
the one stored."""

from __future__ import annotations

import math

from dbbench.reports.family import Checked, FigureValue, Problem
from dbbench.reports.tpch.analysis import RunSummary, summarise_run
from dbbench.reports.tpch.compliance import evaluate
from dbbench.reports.tpch.metrics import lower_qphh
from dbbench.reports.tpch.model import NOT_EVALUATED, BenchmarkResult, Compliance

#: a result judged before a run needed an ACID result is not re-judged on it (its reports
#: still say "ACID: not run" and not compliant: they judge the facts again)
ACID_NOT_RUN = "acid-not-run"

#: an interval's measured seconds (monotonic clock) may differ from its wall-clock span by
#: this much plus 1 % (clock steps, the wall clock's resolution)
CLOCK_SLACK = 0.5


def reported_run(runs: list[RunSummary]) -> RunSummary | None:
    """The run whose figures are reported (the lower QphH, as
    :func:`reports.tpch.summary.build_report` picks it); None when a run has none."""
    if not runs or any(r.qphh is None for r in runs):
        return None
    return lower_qphh(runs, lambda r: r.qphh or 0.0)


def summaries(result: BenchmarkResult) -> list[RunSummary]:
    return [summarise_run(run, result.scale_factor) for run in result.runs]


def tpch_figures(
    result: BenchmarkResult, runs: list[RunSummary] | None = None
) -> dict[str, FigureValue]:
    """QphH, Power and Throughput of the reported run (``build_report``'s headline, without
    its redacted copy of the result)."""
    runs = runs if runs is not None else summaries(result)
    best = reported_run(runs)
    if best is None:
        return {"qphh": None, "power": None, "throughput": None}
    return {"qphh": best.qphh, "power": best.power, "throughput": best.throughput}


def tpch_problems(result: BenchmarkResult, runs: list[RunSummary]) -> list[Problem]:
    out: list[Problem] = []
    for r, run in enumerate(result.runs):
        for i, iv in enumerate(run.intervals):
            if iv.status != "ok":
                continue
            span = iv.end - iv.start
            if not math.isfinite(iv.seconds) or abs(iv.seconds - span) > CLOCK_SLACK + 0.01 * max(
                abs(span), abs(iv.seconds)
            ):
                out.append(
                    Problem(
                        f"runs[{r}].intervals[{i}].seconds",
                        f"{iv.seconds:g} s stated, but it ran from {iv.start:.3f} to "
                        f"{iv.end:.3f} ({span:g} s)",
                    )
                )
    stored = result.compliance
    if NOT_EVALUATED not in stored.codes and "v1-text" not in stored.codes:
        judged = evaluate(result, runs)  # reports.tpch.compliance.judge, the summaries reused
        if ACID_NOT_RUN not in stored.codes:  # judged before the rule (an older kit): kept
            kept = [r for r in judged.reasons if r.code != ACID_NOT_RUN]
            judged = Compliance(not kept, kept)
        if judged.compliant != stored.compliant:
            out.append(
                Problem(
                    "compliance.compliant",
                    f"stated {stored.compliant}, but the measurements judge {judged.compliant}"
                    + (f" ({', '.join(judged.codes)})" if judged.codes else ""),
                )
            )
        elif sorted(judged.codes) != sorted(stored.codes):
            out.append(
                Problem(
                    "compliance.reasons",
                    f"stated {', '.join(stored.codes) or 'none'}, "
                    f"re-judged {', '.join(judged.codes) or 'none'}",
                )
            )
    return out


def check(result: BenchmarkResult) -> Checked:
    runs = summaries(result)
    return Checked(tpch_figures(result, runs), tpch_problems(result, runs), runs)
