"""The gate's fairness: another seed is "parameters differ", never "plan changed"; where the
noise is wider than the threshold, the gate says about how many samples would resolve it."""

from __future__ import annotations

import math

from results_factory import result_with

from dbbench.reports.studies.gate import gate
from dbbench.reports.studies.render_gate import render_gate
from dbbench.reports.tpch.model import PlanRecord, Plans


def _planned(shape: str, seed: int) -> object:
    result = result_with({1: [1.0, 1.0]})
    result.runs[0].seeds = {"0": seed}
    result.plans = Plans(records=[PlanRecord(1, 0, 1, sha256=shape, shape=shape)])
    return result


def test_another_seed_is_parameters_differ_not_a_plan_change() -> None:
    base = _planned("a" * 64, 1)
    same_seed = gate(base, _planned("b" * 64, 1))  # type: ignore[arg-type]
    assert same_seed.changes[0].plan == "plan changed"
    other_seed = gate(base, _planned("b" * 64, 2))  # type: ignore[arg-type]
    assert other_seed.changes[0].plan == "parameters differ"


def test_a_noisy_query_gets_the_samples_that_would_resolve_it() -> None:
    noisy = result_with({1: [0.5, 1.0, 1.5, 2.0]})
    slower = result_with({1: [0.9, 1.4, 1.9, 2.4]})  # IQR 67 % of the median, threshold 10 %
    g = gate(noisy, slower, threshold=10)
    change = g.changes[0]
    assert change.verdict == "unchanged" and change.needed is not None
    assert change.needed == math.ceil(4 * (change.noise / 0.10) ** 2) > 4  # the band ~ 1/sqrt(n)
    text = render_gate(g, "base", "cand", "text")
    assert f"Q1: noise {change.noise * 100:.0f} % against 10 %, 4 samples: about" in text
    assert f"{change.needed} per side" in text
    quiet = gate(result_with({1: [1.0] * 4}), result_with({1: [1.0] * 4}), threshold=10)
    assert quiet.changes[0].needed is None


def test_timings_without_plans_are_said_once() -> None:
    g = gate(result_with({1: [1.0]}), result_with({1: [1.0]}))
    notes = [w for w in g.warnings if "without plans" in w]
    assert notes == [
        "timings compared without plans (the baseline and the candidate captured none)"
    ]
    planned = gate(_planned("a" * 64, 1), _planned("a" * 64, 1))  # type: ignore[arg-type]
    assert not any("without plans" in w for w in planned.warnings)
