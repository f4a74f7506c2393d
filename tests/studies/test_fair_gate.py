"""The gate's fairness: another seed is "parameters differ", never "plan changed"; where the
noise is wider than the threshold, the gate says about how many samples would resolve it."""

from __future__ import annotations

import math

from results_factory import result_with

from dbbench.reports.studies.gate import gate, pooled
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


def _reps(*medians: float) -> list[object]:
    return [result_with({1: [m, m]}) for m in medians]


def _gated(base: list[object], cand: list[object]) -> object:
    return gate(pooled(base), pooled(cand), threshold=10, repetitions=(base, cand))  # type: ignore[arg-type]


def test_with_repetitions_the_interval_decides_and_says_what_would_resolve_it() -> None:
    clear = _gated(_reps(1.0, 1.02, 0.98), _reps(1.5, 1.52, 1.49))
    change = clear.changes[0]  # type: ignore[attr-defined]
    assert clear.by_interval and change.verdict == "regressed"  # type: ignore[attr-defined]
    assert change.low is not None and 1.0 < change.low < change.ratio < change.high
    assert change.repetitions == 3 and change.needed is None
    # pooled into one band this noisy pair regresses (+30 %, band 23 %); the interval over
    # three repetitions spans 1x, so it is unchanged, and says how many would resolve it
    base, cand = _reps(1.0, 1.1, 0.9), _reps(1.3, 1.6, 1.2)
    banded = gate(pooled(base), pooled(cand), threshold=10)  # type: ignore[arg-type]
    assert banded.changes[0].verdict == "regressed"
    noisy = _gated(base, cand)
    change = noisy.changes[0]  # type: ignore[attr-defined]
    assert change.low < 1.0 < change.high and change.verdict == "unchanged"
    half = math.log(change.high / change.low) / 2
    assert change.needed == max(4, math.ceil(3 * (half / math.log(1.1)) ** 2)) > 3
    for fmt in ("text", "md", "html", "json"):
        out = render_gate(noisy, "base", "cand", fmt)  # type: ignore[arg-type]
        assert "interval" in out and str(change.needed) in out, fmt
    text = render_gate(noisy, "base", "cand", "text")  # type: ignore[arg-type]
    assert "decided on the 95 % interval over 3 and 3 repetitions" in text
    assert f"3 repetitions: about {change.needed} repetitions per side" in text
    single = gate(result_with({1: [1.0, 1.0]}), result_with({1: [1.0, 1.0]}))
    assert not single.by_interval and single.changes[0].low is None
    assert "decided on the noise band" in render_gate(single, "b", "c", "text")
