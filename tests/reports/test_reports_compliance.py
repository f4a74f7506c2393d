"""Compliance labelling: every reason is named, numbers stay visible, failures never vanish."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from dbbench.reports.tpch.compliance import MESSAGES, judge, message, messages
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.model import BenchmarkResult, Reason, not_evaluated
from dbbench.reports.tpch.summary import build_report

Factory = Callable[..., BenchmarkResult]


def test_the_hand_built_result_is_compliant(result: BenchmarkResult) -> None:
    report = build_report(result)
    assert report.compliance.compliant, report.compliance.reasons
    # Hand-worked: stream 0 has Q_n = 1.0 + n/10 s and RFs of 0.8 and 0.6 s; the throughput
    # test lasts 69.3 s (stream 2: 22 queries of 2.0 + n/10 s), S = 2 at SF 1.
    assert report.headline.power == 1921.9
    assert report.headline.throughput == 2285.7  # 2 * 22 * 3600 / 69.3
    assert report.headline.qphh == 2095.9


def test_unofficial_scale_factor_is_labelled_but_numbers_are_shown(factory: Factory) -> None:
    report = build_report(factory(scale_factor=0.01))
    assert not report.compliance.compliant
    assert any("scale factor 0.01 is not an official" in r for r in report.reasons)
    assert report.compliance.codes == ["sf-not-official"]
    assert report.headline.qphh is not None  # still computed, for information
    assert report.headline.power == 19.2


def test_an_acid_result_of_a_development_database_is_not_a_qualification(
    result: BenchmarkResult,
) -> None:
    """Clause 3.1: the ACID tests count on the qualification database (SF 1); a pass at
    SF 0.01 is a development check, and the run is not compliant for that reason."""
    assert result.acid is not None and result.acid.scale_factor == 1.0
    assert judge(result).compliant
    result.acid = dataclasses.replace(result.acid, scale_factor=0.01)
    verdict = judge(result)
    assert verdict.codes == ["acid-not-qualification"]
    assert "passed at SF 0.01, not on the qualification database" in message(verdict.reasons[0])
    for fmt in ("text", "md", "html", "json"):
        assert "not on the qualification database" in render(result, fmt), fmt


def test_too_few_streams_for_the_scale_factor(factory: Factory) -> None:
    report = build_report(factory(scale_factor=100, streams=2))
    assert "2 throughput streams; SF 100 needs at least 5" in report.reasons
    assert report.compliance.reasons[0] == Reason(
        "streams-below-minimum", {"streams": 2, "sf": 100, "minimum": 5}
    )


def test_a_failed_query_is_never_dropped_from_a_metric(result: BenchmarkResult) -> None:
    run = result.runs[0]
    victim = next(iv for iv in run.intervals if iv.phase == "power" and iv.query == 9)
    victim.status, victim.error = "error", "division by zero"
    report = build_report(result)
    first = report.runs[0]
    assert first.power is None and first.qphh is None
    assert first.throughput is not None
    assert "run 1: Q9 of the power test failed (error): division by zero" in report.reasons
    assert report.headline.qphh is None
    assert "not computed" in report.headline.qphh_note
    md = render(result, "md")
    assert "| 0 (power) | 101000001 |" in md and " failed |" in md
    assert "Power@Size not computed: Q9 failed" in md


def test_a_missing_interval_is_reported(result: BenchmarkResult) -> None:
    run = result.runs[1]
    run.intervals = [iv for iv in run.intervals if not (iv.stream == 2 and iv.query == 5)]
    report = build_report(result)
    assert report.runs[1].throughput is None
    assert any("throughput stream 2 has no interval for Q5" in r for r in report.reasons)
    assert "interval-missing" in report.compliance.codes


def test_a_reused_update_set_is_labelled(result: BenchmarkResult) -> None:
    second = result.runs[1]
    for iv in second.intervals:
        if iv.update_set is not None:
            iv.update_set -= 3  # run 2 consumes run 1's sets again
    second.update_sets = [s - 3 for s in second.update_sets]
    report = build_report(result)
    assert "update set(s) 1, 2, 3 used by more than one refresh pair" in report.reasons


def test_single_run_and_reused_load(result: BenchmarkResult) -> None:
    result.runs = result.runs[:1]
    assert result.load is not None
    result.load = dataclasses.replace(result.load, reused=True)
    report = build_report(result)
    assert "the performance test needs 2 runs, the result has 1" in report.reasons
    assert any("already loaded database was reused" in r for r in report.reasons)
    assert report.compliance.codes == ["runs-not-two", "load-reused"]
    result.config["command"] = "power"  # the power test on its own: said precisely
    assert build_report(result).compliance.codes == ["runs-not-two", "load-not-in-invocation"]


def test_more_runs_than_two_are_not_compliant_either(result: BenchmarkResult) -> None:
    third = dataclasses.replace(result.runs[1], number=3, intervals=[], update_sets=[])
    result.runs.append(third)
    assert "runs-not-two" in build_report(result).compliance.codes


def test_problems_recorded_by_the_driver_are_kept(result: BenchmarkResult) -> None:
    result.errors = ["the server restarted during run 2"]
    report = build_report(result)
    assert report.reasons == [
        "1 problem(s) recorded during the run, the first: the server restarted during run 2"
    ]


def test_the_stored_verdict_is_never_merged_the_facts_are_judged_again(
    factory: Factory,
) -> None:
    """Reports judge the facts; a verdict stored in the file (by an older kit, by hand, or
    by the run) neither adds reasons nor hides them, so nothing is listed twice."""
    result = factory(scale_factor=0.01)
    result.compliance.compliant = True
    result.compliance.reasons = [Reason("sf-not-official", {"sf": 0.01, "official": "1, 10"})]
    reasons = build_report(result).reasons
    assert sum(r.startswith("scale factor") for r in reasons) == 1
    assert build_report(result).compliance == judge(result)


def test_every_rule_broken_at_setup_is_named(factory: Factory) -> None:
    """What the driver used to decide on its own (setup_reasons), now judged here."""
    assert judge(factory(scale_factor=1, streams=2)).compliant
    assert judge(factory(scale_factor=100, streams=5)).compliant
    small = factory(scale_factor=0.01, streams=1)
    small.runs = small.runs[:1]
    assert judge(small).codes == ["sf-not-official", "runs-not-two"]
    assert judge(factory(scale_factor=100, streams=4)).codes == ["streams-below-minimum"]


@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_every_code_has_a_message_that_formats(code: str) -> None:
    facts = {
        "sf": 0.5, "official": "1, 10", "streams": 1, "minimum": 2, "runs": 1, "status": "partial",
        "run": 1, "what": "Q1", "where": "power test", "error": "boom", "count": 3,
        "sets": "1, 2",
        "first": "Q1 failed", "text": "an old reason", "stream": 2, "orders": 12, "lineitem": 60,
        "summary": "ACID: failed: isolation-3: txn2 committed",
    }  # fmt: skip
    text = message(Reason(code, facts))
    assert text and "{" not in text and code not in text


def test_an_unknown_code_from_a_newer_kit_is_shown_not_dropped() -> None:
    assert message(Reason("newer-rule", {"x": 1})) == "newer-rule {'x': 1}"
    assert messages(not_evaluated()) == ["not evaluated"]


def test_a_partial_result_still_renders_every_format(result: BenchmarkResult) -> None:
    """An interrupted run: run 1 stopped after the power test, no run 2."""
    first = result.runs[0]
    first.intervals = [iv for iv in first.intervals if iv.phase == "power"]
    first.throughput_start = first.throughput_end = None
    result.runs = [first]
    result.status = "partial"
    report = build_report(result)
    assert report.runs[0].power == 1921.9
    assert report.runs[0].throughput is None and report.headline.qphh is None
    assert "the benchmark is partial, not complete" in report.reasons
    for fmt in ("text", "md", "html", "json"):
        assert "1,921.9" in render(result, fmt) or "1921.9" in render(result, fmt)


def test_an_empty_result_renders(result: BenchmarkResult) -> None:
    result.runs, result.load = [], None
    result.status = "failed"
    for fmt in ("text", "md", "html", "json"):
        assert "n/a" in render(result, fmt) or '"qphh": null' in render(result, fmt)
    reasons = build_report(result).reasons
    assert "no load test was recorded" in reasons
