"""Compliance labelling: every reason is named, numbers stay visible, failures never vanish."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from dbbench.reports.formats import render
from dbbench.reports.model import BenchmarkResult
from dbbench.reports.summary import build_report

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
    assert any("scale factor 0.01 is not an official" in r for r in report.compliance.reasons)
    assert report.headline.qphh is not None  # still computed, for information
    assert report.headline.power == 19.2


def test_too_few_streams_for_the_scale_factor(factory: Factory) -> None:
    report = build_report(factory(scale_factor=100, streams=2))
    assert "2 throughput streams; SF 100 needs at least 5" in report.compliance.reasons


def test_a_failed_query_is_never_dropped_from_a_metric(result: BenchmarkResult) -> None:
    run = result.runs[0]
    victim = next(iv for iv in run.intervals if iv.phase == "power" and iv.query == 9)
    victim.status, victim.error = "error", "division by zero"
    report = build_report(result)
    first = report.runs[0]
    assert first.power is None and first.qphh is None
    assert first.throughput is not None
    assert (
        "run 1: Q9 of the power test failed (error): division by zero" in report.compliance.reasons
    )
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
    assert any("throughput stream 2 has no interval for Q5" in r for r in report.compliance.reasons)


def test_a_reused_update_set_is_labelled(result: BenchmarkResult) -> None:
    second = result.runs[1]
    for iv in second.intervals:
        if iv.update_set is not None:
            iv.update_set -= 3  # run 2 consumes run 1's sets again
    second.update_sets = [s - 3 for s in second.update_sets]
    report = build_report(result)
    assert "update set(s) 1, 2, 3 used by more than one refresh pair" in report.compliance.reasons


def test_single_run_reused_load_and_failed_validation(result: BenchmarkResult) -> None:
    result.runs = result.runs[:1]
    assert result.load is not None
    result.load = dataclasses.replace(result.load, reused=True)
    result.validation[2].passed = False
    reasons = build_report(result).compliance.reasons
    assert "the performance test needs 2 runs, the result has 1" in reasons
    assert any("already loaded database was reused" in r for r in reasons)
    assert "query validation failed for Q3" in reasons


def test_reasons_recorded_by_the_driver_are_kept(result: BenchmarkResult) -> None:
    result.compliance.compliant = False
    result.compliance.reasons = ["the server restarted during run 2"]
    report = build_report(result)
    assert report.compliance.reasons == ["the server restarted during run 2"]


def test_a_driver_reason_on_a_topic_checked_here_is_not_listed_twice(factory: Factory) -> None:
    result = factory(scale_factor=0.01)
    result.compliance.reasons = [
        "scale factor 0.01 is not an official one (1, 10, ...)",
        "the journal could not be synced",
    ]
    reasons = build_report(result).compliance.reasons
    assert sum(r.startswith("scale factor") for r in reasons) == 1
    assert "the journal could not be synced" in reasons


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
    assert "the benchmark is partial, not complete" in report.compliance.reasons
    for fmt in ("text", "md", "html", "json"):
        assert "1,921.9" in render(result, fmt) or "1921.9" in render(result, fmt)


def test_an_empty_result_renders(result: BenchmarkResult) -> None:
    result.runs, result.load, result.validation = [], None, []
    result.status = "failed"
    for fmt in ("text", "md", "html", "json"):
        assert "n/a" in render(result, fmt) or '"qphh": null' in render(result, fmt)
    reasons = build_report(result).compliance.reasons
    assert "no load test was recorded" in reasons
